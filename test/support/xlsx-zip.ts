import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * .xlsx workbooks written by hand, part by part, so a test can make ones no spreadsheet
 * would: parts that inflate to hundreds of megabytes from a few hundred kilobytes. Each
 * part is deflated piece by piece (its text is never whole in memory); sizes stay under
 * 4 GiB (no zip64).
 */

export type PartText = string | Iterable<string>;

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A workbook of one sheet, parts in the order given (Excel writes the sheet before the shared strings). */
export function xlsxWorkbook(parts: { sheet: PartText; sharedStrings?: PartText; sharedStringsFirst?: boolean }): Buffer {
  const sheet: [string, PartText] = ['xl/worksheets/sheet1.xml', parts.sheet];
  const strings: Array<[string, PartText]> = parts.sharedStrings === undefined ? [] : [['xl/sharedStrings.xml', parts.sharedStrings]];
  return zip([
    [
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
    ],
    [
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheets><sheet name="Payroll" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${RELATIONSHIPS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ],
    ...(parts.sharedStringsFirst === true ? [...strings, sheet] : [sheet, ...strings]),
  ]);
}

/** `<sst>` around the strings given, each as one `<si><t>`. */
export function* sharedStringsXml(strings: Iterable<string>): Generator<string> {
  yield `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${MAIN}">`;
  for (const text of strings) yield `<si><t>${escapeXml(text)}</t></si>`;
  yield '</sst>';
}

/** A sheet of rows, each an array of cells: `{ s: index }` a shared string, a string inline, a number as it is. */
export function* sheetXml(rows: Iterable<Array<{ s: number } | string | number>>): Generator<string> {
  yield `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN}"><sheetData>`;
  let number = 0;
  for (const cells of rows) {
    number++;
    const xml = cells.map((cell, index) => {
      const ref = `${columnName(index)}${number}`;
      if (typeof cell === 'number') return `<c r="${ref}"><v>${cell}</v></c>`;
      if (typeof cell === 'string') return `<c r="${ref}" t="inlineStr"><is><t>${escapeXml(cell)}</t></is></c>`;
      return `<c r="${ref}" t="s"><v>${cell.s}</v></c>`;
    });
    yield `<row r="${number}">${xml.join('')}</row>`;
  }
  yield '</sheetData></worksheet>';
}

function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface Deflated {
  name: Buffer;
  data: Buffer;
  crc: number;
  size: number;
}

/** Deflates a part a piece at a time: pieces are batched to about 1 MiB, each flushed into one raw deflate stream. */
function deflatePart(name: string, text: PartText): Deflated {
  const pieces = typeof text === 'string' ? [text] : text;
  let crc = 0;
  let size = 0;
  const out: Buffer[] = [];
  let batch: string[] = [];
  let batchLength = 0;
  const flush = (last: boolean) => {
    const bytes = Buffer.from(batch.join(''), 'utf8');
    batch = [];
    batchLength = 0;
    crc = crc32(bytes, crc);
    size += bytes.length;
    out.push(deflatePiece(bytes, last));
  };
  for (const piece of pieces) {
    batch.push(piece);
    batchLength += piece.length;
    if (batchLength >= 1024 * 1024) flush(false);
  }
  flush(true);
  return { name: Buffer.from(name, 'utf8'), data: Buffer.concat(out), crc, size };
}

/**
 * A piece of one raw deflate stream: each piece is deflated on its own, and all but the
 * last end with a sync flush (no final block, byte-aligned), so the pieces concatenate
 * into one valid stream.
 */
function deflatePiece(bytes: Buffer, last: boolean): Buffer {
  return deflateRawSync(bytes, { ...(last ? {} : { finishFlush: constants.Z_SYNC_FLUSH }) });
}

function zip(entries: Array<[string, PartText]>): Buffer {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of entries) {
    const part = deflatePart(name, text);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names in UTF-8
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(part.crc >>> 0, 14);
    local.writeUInt32LE(part.data.length, 18);
    local.writeUInt32LE(part.size, 22);
    local.writeUInt16LE(part.name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(part.crc >>> 0, 16);
    header.writeUInt32LE(part.data.length, 20);
    header.writeUInt32LE(part.size, 24);
    header.writeUInt16LE(part.name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, part.name);
    chunks.push(local, part.name, part.data);
    offset += local.length + part.name.length + part.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, directory, end]);
}

import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A table's columns in the order rows give their cells; `type` is the SQL type each text cell is read as. */
export interface BulkTable {
  name: string;
  columns: ReadonlyArray<{ name: string; type: string }>;
}

/** A row as text cells (PostgreSQL's text input of each column's type), null for NULL. */
export type BulkRow = ReadonlyArray<string | null>;

/**
 * Writes many rows in one statement. The batch import writes hundreds of thousands of rows;
 * a multi-row INSERT with a bind parameter per cell spent most of the server's time parsing
 * and binding (62 %, measured), so rows go as COPY where a driver is at hand, otherwise as
 * one INSERT with an array parameter per column.
 */
export interface BulkWriter {
  (table: BulkTable, rows: readonly BulkRow[]): Promise<void>;
  /**
   * Rows already in COPY's text format (copyLine), as bytes: the import encodes each row as
   * it is read, so a chunk waiting for its write is one buffer, not thousands of cell arrays
   * the garbage collector moves to the old generation. Writers without it get cells
   * (cellsOfCopyText).
   */
  text?: (table: BulkTable, text: Uint8Array) => Promise<void>;
}

/** `COPY … FROM STDIN` of COPY text: what the database runs for a BulkWriter. */
export type CopyText = (sql: string, text: string | Uint8Array) => Promise<void>;

export function copyWriter(copy: CopyText): BulkWriter {
  const statement = (table: BulkTable) =>
    `COPY "${table.name}" (${table.columns.map((column) => `"${column.name}"`).join(', ')}) FROM STDIN`;
  const writer: BulkWriter = async (table, rows) => {
    if (rows.length === 0) return;
    await copy(statement(table), copyRows(rows));
  };
  writer.text = async (table, text) => {
    if (text.length === 0) return;
    await copy(statement(table), text);
  };
  return writer;
}

/** PostgreSQL: a connection of the pool for the length of the COPY. */
export function pgCopy(pool: pg.Pool): CopyText {
  return async (sql, text) => {
    const client = await pool.connect();
    let broken: unknown;
    try {
      await pipeline(Readable.from([typeof text === 'string' ? Buffer.from(text, 'utf8') : text]), client.query(copyFrom(sql)));
    } catch (error) {
      broken = error;
      throw error;
    } finally {
      // A COPY that failed half-way may leave the connection mid-protocol: it is not reused.
      client.release(broken instanceof Error ? broken : undefined);
    }
  };
}

/** PGlite reads COPY input from a Blob given as `/dev/blob`. */
export function pgliteCopy(pglite: PGlite): CopyText {
  return async (sql, text) => {
    // The import's buffers are Node's, never on a SharedArrayBuffer; the Blob copies them.
    const part = typeof text === 'string' ? text : (text as Uint8Array<ArrayBuffer>);
    await pglite.query(sql.replace(/FROM STDIN$/, "FROM '/dev/blob'"), [], { blob: new Blob([part]) });
  };
}

/** Without a driver (a PrismaClient alone): one INSERT … SELECT FROM unnest with a text array per column. */
export function unnestWriter(execute: (sql: string, params: unknown[]) => Promise<unknown>): BulkWriter {
  return async (table, rows) => {
    if (rows.length === 0) return;
    const names = table.columns.map((column) => `"${column.name}"`).join(', ');
    const params = table.columns.map((_, index) => rows.map((row) => row[index] ?? null));
    const cells = table.columns.map((column, index) => `c${index}::${column.type}`).join(', ');
    const arrays = table.columns.map((_, index) => `$${index + 1}::text[]`).join(', ');
    const aliases = table.columns.map((_, index) => `c${index}`).join(', ');
    await execute(`INSERT INTO "${table.name}" (${names}) SELECT ${cells} FROM unnest(${arrays}) AS t(${aliases})`, params);
  };
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const SPECIAL = /[\\\t\n\r]/;

/** COPY's text format: tab between cells, a line per row, \N for NULL, backslash escapes. */
function copyRows(rows: readonly BulkRow[]): string {
  let text = '';
  for (const row of rows) text += `${copyCells(row)}\n`;
  return text;
}

/** Cells in COPY's text format, tab-separated, without the line end: part of a row's line (copyRows). */
export function copyCells(cells: BulkRow): string {
  let text = '';
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (i > 0) text += '\t';
    if (cell === null || cell === undefined) text += '\\N';
    else text += SPECIAL.test(cell) ? cell.replace(/[\\\t\n\r]/g, (char) => ESCAPES[char]!) : cell;
  }
  return text;
}

const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

/** COPY text (copyCells' lines) back to cells, for a writer that takes cells (unnestWriter, a test's). */
export function cellsOfCopyText(text: Uint8Array): BulkRow[] {
  const lines = Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8').split('\n');
  lines.pop();
  return lines.map((line) =>
    line.split('\t').map((cell) => (cell === '\\N' ? null : cell.replace(/\\(.)/g, (_, char: string) => UNESCAPES[char] ?? char))),
  );
}

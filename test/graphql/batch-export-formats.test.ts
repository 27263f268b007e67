import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemColumns, resultColumns, xlsxValue } from '../../src/batch/export/batch-export.ts';
import { textSource } from '../support/batch.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';

let gw: TestGateway;
let batchId: string;

// Amounts that a float path would get wrong somewhere (0.1 + 0.2, 1.005 …), a Cyrillic
// reference, a cell a spreadsheet would run, a card number, a warning and a row error.
const file = [
  'reference,provider,amount,account,pan,description',
  'ЗП-001,bank-card-token,1234.50,token_success,,Зарплата; ноябрь',
  'EMP-002,bank-card-token,"100 000,10",token_success,,',
  'EMP-003,bank-card-token,1.10,token_success,,',
  '"=1+2",bank-card-token,600000.00,token_success,,',
  'EMP-005,bank-card-russia,1.01,,2200 0000 0000 0004,',
  'EMP-006,bank-card-russia,100.00,,12345,',
].join('\n');

beforeAll(async () => {
  gw = await startTestGateway({ env: { GATEWAY_API_KEYS: apiKeysEnv({ v: 'viewer' }) }, sandbox: { balance: '5000000.00' } });
  const batch = await gw.services().importer.import({ source: textSource(`${file}\n`), fileName: 'formats.csv' });
  batchId = batch.id;
});
afterAll(() => gw.close());

async function download(path: string) {
  const response = await request(`${gw.gateway.url}${path}`, { headers: { authorization: `Bearer ${apiKey('v')}` } });
  return { status: response.statusCode, headers: response.headers, bytes: Buffer.from(await response.body.arrayBuffer()) };
}

describe('results and problems for a spreadsheet', () => {
  it('excel: UTF-8 with a BOM, ";", decimal comma, CRLF, card numbers masked', async () => {
    const reply = await download(`/batches/${batchId}/results.csv?format=excel`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="batch-${batchId}-results-excel.csv"`);
    expect([...reply.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = reply.bytes.toString('utf8');
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    expect(text).not.toContain('2200000000000004');
    const rows: string[][] = parse(reply.bytes, { delimiter: ';', bom: true, record_delimiter: '\r\n' });
    expect(rows[0]).toEqual([...resultColumns]);
    const byReference = new Map(rows.slice(1).map((row) => [row[1], row]));
    expect(byReference.get('ЗП-001')!.slice(2, 4)).toEqual(['bank-card-token', '1234,50']);
    expect(byReference.get('EMP-002')![3]).toBe('100000,10');
    expect(byReference.get('EMP-003')![3]).toBe('1,10');
    expect(byReference.get("'=1+2")![3]).toBe('600000,00');
    expect(byReference.get('EMP-005')![resultColumns.indexOf('recipient')]).toBe('pan=2200********0004');
  });

  it('?locale=ru chooses the excel dialect; ?locale=en plain CSV; nonsense is refused', async () => {
    const ru = await download(`/batches/${batchId}/results.csv?locale=ru-RU`);
    expect(ru.bytes.toString('utf8')).toMatch(/^\uFEFFline;reference;provider;amount;/);
    const en = await download(`/batches/${batchId}/results.csv?locale=en`);
    expect(en.bytes.toString('utf8')).toMatch(/^\uFEFFline,reference,provider,amount,/);
    expect(en.bytes.toString('utf8')).toContain(',1234.50,');
    expect(en.headers['content-disposition']).toBe(`attachment; filename="batch-${batchId}-results.csv"`);
    expect((await download(`/batches/${batchId}/results.csv?format=ods`)).status).toBe(400);
    expect((await download(`/batches/${batchId}/results.csv?locale=%%%`)).status).toBe(400);
  });

  it('the problems report in the excel dialect', async () => {
    const reply = await download(`/batches/${batchId}/problems.csv?format=excel`);
    const rows: string[][] = parse(reply.bytes, { delimiter: ';', bom: true });
    expect(rows[0]).toEqual([...problemColumns]);
    expect(rows.slice(1).map((row) => row.slice(0, 4))).toEqual([
      ['6', 'pan', 'warning', 'pan.normalised'],
      ['7', 'pan', 'error', 'field.pattern'],
    ]);
    expect(rows[1]![4]).toBe('spaces removed from the card number 2200********0004');
  });

  it('xlsx: a workbook with amounts as numbers to the cent, shown with two decimals, text left as text', async () => {
    const reply = await download(`/batches/${batchId}/results.xlsx`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="batch-${batchId}-results.xlsx"`);
    const same = await download(`/batches/${batchId}/results.csv?format=xlsx`);
    expect(same.headers['content-type']).toBe(reply.headers['content-type']);
    expect(reply.bytes.toString('latin1')).not.toContain('2200000000000004');

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(reply.bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([undefined, ...resultColumns]);
    const rows = new Map<string, ExcelJS.Row>();
    sheet.eachRow((row, number) => {
      if (number > 1) rows.set(String(row.getCell(2).value), row);
    });
    expect(rows.size).toBe(5);
    const amount = (reference: string) => rows.get(reference)!.getCell(4);
    expect(amount('ЗП-001').value).toBe(1234.5);
    expect(amount('EMP-002').value).toBe(100000.1);
    expect(amount('EMP-003').value).toBe(1.1);
    expect(amount('=1+2').value).toBe(600000);
    expect(amount('EMP-005').value).toBe(1.01);
    expect(amount('EMP-005').numFmt).toBe('#,##0.00');
    expect(rows.get('ЗП-001')!.getCell(1).value).toBe(2);
    expect(rows.get('=1+2')!.getCell(1).type).toBe(ExcelJS.ValueType.Number);
    // Text is text in a workbook: nothing to neutralise, nothing evaluated.
    expect(rows.get('=1+2')!.getCell(2).type).toBe(ExcelJS.ValueType.String);
    expect(rows.get('EMP-005')!.getCell(resultColumns.indexOf('recipient') + 1).value).toBe('pan=2200********0004');
  });

  it('xlsx problems report: line as a number, messages as written', async () => {
    const reply = await download(`/batches/${batchId}/problems.xlsx`);
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="batch-${batchId}-problems.xlsx"`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(reply.bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([undefined, ...problemColumns]);
    expect(sheet.getRow(2).values).toEqual([
      undefined,
      6,
      'pan',
      'warning',
      'pan.normalised',
      'spaces removed from the card number 2200********0004',
    ]);
    expect(sheet.getRow(3).getCell(1).value).toBe(7);
  });

  it('turns minor units into the cell value only at the end, exact to the cent', () => {
    for (let minor = 0n; minor < 100_000n; minor += 7n) {
      const text = `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`;
      expect((xlsxValue('money', text) as number).toFixed(2)).toBe(text);
    }
    expect((xlsxValue('money', '9007199254740.99') as number).toFixed(2)).toBe('9007199254740.99');
    expect(xlsxValue('money', '90071992547409.93')).toBe('90071992547409.93');
    expect(xlsxValue('integer', '12')).toBe(12);
    expect(xlsxValue(undefined, '12')).toBe('12');
  });

  it('refuses without a key and for an unknown batch', async () => {
    expect((await request(`${gw.gateway.url}/batches/${batchId}/results.xlsx`)).statusCode).toBe(401);
    expect((await download('/batches/nope/results.xlsx')).status).toBe(404);
  });
});

import ExcelJS from 'exceljs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerCodes } from '../../src/payout/models.ts';
import { textSource } from '../support/batch.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, apiKeysEnv } from '../support/keys.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { GATEWAY_API_KEYS: apiKeysEnv({ v: 'viewer' }) } });
});
afterAll(() => gw.close());

async function download(path: string, key: string | null = 'v') {
  const response = await request(`${gw.gateway.url}${path}`, { headers: key === null ? {} : { authorization: `Bearer ${apiKey(key)}` } });
  return { status: response.statusCode, headers: response.headers, bytes: Buffer.from(await response.body.arrayBuffer()) };
}

async function* bytesOf(bytes: Buffer): AsyncGenerator<Uint8Array> {
  yield bytes;
}

async function validate(bytes: Buffer) {
  return gw.services().importer.validate({ source: textSource(bytes.toString('utf8')), fileName: 'template.csv' });
}

describe.each(providerCodes)('the %s template', (code) => {
  it('CSV: the header and an example row that imports with no error and no warning', async () => {
    const reply = await download(`/templates/${code}.csv`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="payroll-template-${code}.csv"`);
    const lines = reply.bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^reference,provider,amount,currency,/);
    expect(lines[1]).toContain(`,${code},1500.00,RUB,`);
    const report = await validate(reply.bytes);
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ payable: true, rowCount: 1, validCount: 1, totalAmount: '1500.00' });
  });

  it('excel dialect (?locale=ru): ";" and a decimal comma, importing the same', async () => {
    const reply = await download(`/templates/${code}.csv?locale=ru`);
    const text = reply.bytes.toString('utf8');
    expect(text).toMatch(new RegExp(`^\\uFEFFreference;provider;amount;currency;.*\\r\\nEXAMPLE-001;${code};1500,00;RUB;`, 's'));
    const report = await validate(reply.bytes);
    expect(report.problems).toEqual([]);
    expect(report.validCount).toBe(1);
  });

  it('XLSX: the same row with the amount as a number, importing with no error and no warning', async () => {
    const reply = await download(`/templates/${code}.xlsx`);
    expect(reply.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(reply.bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    const example = (sheet.getRow(2).values as unknown[]).slice(1);
    expect(example.slice(0, 4)).toEqual(['EXAMPLE-001', code, 1500, 'RUB']);
    expect(header.slice(0, 4)).toEqual(['reference', 'provider', 'amount', 'currency']);
    const report = await gw.services().importer.validate({ source: bytesOf(reply.bytes), fileName: `${code}.xlsx` });
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ payable: true, rowCount: 1, validCount: 1, totalAmount: '1500.00' });
  });
});

describe('templates', () => {
  it('are refused without a key, and for a provider that does not exist', async () => {
    expect((await download('/templates/sbp-b2c.csv', null)).status).toBe(401);
    const unknown = await download('/templates/paypal.csv');
    expect(unknown.status).toBe(404);
    expect(unknown.bytes.toString('utf8')).toContain('sbp-b2c');
  });
});

import { readFileSync } from 'node:fs';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInFreshDataDir } from '../../support/cli-process.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

/** The files clerks have (XLSX, Excel "Unicode text"), through the two ways in: the CLI and the GraphQL upload. */
const fixture = (name: string) => new URL(`../../fixtures/${name}`, import.meta.url).pathname;

describe('payroll files through the CLI', () => {
  const { payout } = cliInFreshDataDir('payout-files-cli-');

  it('validates an .xlsx workbook and names the sheet’s rows in its problems', async () => {
    const valid = await payout(['batch', 'validate', fixture('payroll.xlsx')]);
    expect(valid.stdout).toContain('4 rows, 4 valid');
    expect(valid.code).toBe(0);
    const broken = await payout(['batch', 'validate', fixture('payroll-errors.xlsx')]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^5\s+provider\s+error\s+provider\.unknown/m);
  }, 240_000);

  it('imports and pays an Excel "Unicode text" file', async () => {
    const result = await payout(['batch', 'run', fixture('payroll-unicode-text.txt'), '--yes']);
    expect(result.stdout).toMatch(/4 rows, 4 valid/);
    expect(result.stdout).toMatch(/COMPLETED/);
    expect(result.code).toBe(0);
  }, 240_000);
});

describe('payroll files through GraphQL', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw?.close());

  it('imports an .xlsx upload, told by its content, not its name', async () => {
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query:
          'mutation($file: File!) { importBatch(file: $file, force: true) { __typename ... on ImportBatchSuccess { batch { status fileName rowCount validCount totalAmount { value } problems { code message } } } } }',
        variables: { file: null },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([readFileSync(fixture('payroll.xlsx'))]), 'ведомость.csv');
    const response = await request(`${gw.gateway.url}/graphql`, { method: 'POST', headers: { 'x-graphql-yoga-csrf': '1' }, body: form });
    const body = (await response.body.json()) as { data: { importBatch: { batch: Record<string, unknown> } } };
    expect(body.data.importBatch.batch).toMatchObject({
      status: 'VALIDATED',
      fileName: 'ведомость.csv',
      rowCount: 4,
      validCount: 4,
      totalAmount: { value: '34800.60' },
      problems: [{ code: 'row.empty', message: '1 row with no cell filled skipped (line 6)' }],
    });
  });
});

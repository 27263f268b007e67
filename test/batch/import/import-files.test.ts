import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FormData, request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

/** The files clerks have (XLSX, Excel "Unicode text"), through the two ways in: the CLI and the GraphQL upload. */
const fixture = (name: string) => new URL(`../../fixtures/${name}`, import.meta.url).pathname;
const bin = new URL('../../../bin/payout.js', import.meta.url).pathname;

describe('payroll files through the CLI', () => {
  let dataDir: string;
  const running = new Set<ChildProcess>();
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payout-files-cli-'));
  });
  afterEach(async () => {
    for (const child of running) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  function payout(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PAYOUT_API_URL: '', GATEWAY_API_KEYS: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      running.add(child);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        running.delete(child);
        resolve({ code, stdout, stderr });
      });
    });
  }

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
        query: 'mutation($file: File!) { importBatch(file: $file, force: true) { __typename ... on ImportBatchSuccess { batch { status fileName rowCount validCount totalAmount { value } problems { code message } } } } }',
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

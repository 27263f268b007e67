import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sampleFile } from './support/batch.ts';
import { startSandbox } from './support/sandbox.ts';

const bin = new URL('../bin/payout.js', import.meta.url).pathname;

/**
 * Each CLI start loads the built app (dist/, built by test/global-setup.ts): a few seconds
 * at most, more on a loaded machine. The limits are for a hung run only and no assertion depends on time,
 * so they are generous: per process started, never less than three minutes per test.
 */
const PER_START_MS = 60_000;
const budget = (starts: number) => Math.max(180_000, starts * PER_START_MS);

let dataDir: string;
const running = new Set<ChildProcess>();

// A data directory per test: no test reads what another one paid or stored.
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payout-cli-'));
});
afterEach(async () => {
  // A test that timed out must not leave its CLI running (and its database open) behind.
  for (const child of running) child.kill('SIGKILL');
  await Promise.all([...running].map((child) => new Promise((resolve) => child.once('close', resolve))));
  await rm(dataDir, { recursive: true, force: true });
});

/** The CLI as a user runs it: its own process, its own embedded database and sandbox. */
function payout(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PAYOUT_API_URL: '', GATEWAY_API_KEYS: '', ...env },
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

describe('payout CLI', () => {
  it('validate prints the problems with line numbers and exits 1 for a file that is not payable', async () => {
    const result = await payout(['batch', 'validate', sampleFile('payroll-errors.csv')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/18 rows, 2 valid, 16 invalid, 16 errors, 1 warnings/);
    expect(result.stdout).toMatch(/^2\s+provider\s+error\s+provider\.unknown/m);
    expect(result.stdout).toMatch(/^14\s+reference\s+error\s+reference\.duplicate\s+"ERR-12" is also on line 13/m);
    expect(result.stdout).toContain('The file cannot be paid as it is.');
  }, budget(1));

  it('validate exits 0 for a payable file, and writes nothing', async () => {
    const result = await payout(['batch', 'validate', sampleFile('payroll-1251-semicolon.csv')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('4 rows, 4 valid');
  }, budget(1));

  it('--help lists the commands without reading the configuration or opening the database', async () => {
    const missing = join(dataDir, 'never-made');
    // A configuration that would stop any command that read it.
    const result = await payout(['--help'], { DATA_DIR: missing, PORT: 'not a port' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Usage: payout/);
    expect(result.stdout).toMatch(/batch\s/);
    const batchHelp = await payout(['batch', '--help'], { DATA_DIR: missing, PORT: 'not a port' });
    expect(batchHelp.stdout).toMatch(/validate \[options\] <file>|validate <file>/);
    expect(existsSync(missing)).toBe(false);
  }, budget(2));

  it('validate writes nothing into DATA_DIR: no database, no keys, no sandbox state', async () => {
    const result = await payout(['batch', 'validate', sampleFile('payroll-errors.csv')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/18 rows, 2 valid, 16 invalid, 16 errors, 1 warnings/);
    expect(await readdir(dataDir)).toEqual([]);
  }, budget(1));

  it('validate works with DATA_DIR pointing nowhere and a database that does not answer, and creates nothing', async () => {
    const nowhere = join(dataDir, 'no', 'such', 'dir');
    const result = await payout(['batch', 'validate', sampleFile('payroll-1251-semicolon.csv')], {
      DATA_DIR: nowhere,
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('4 rows, 4 valid');
    expect(result.stdout).toContain('The file can be paid.');
    expect(existsSync(join(dataDir, 'no'))).toBe(false);
  }, budget(1));

  it('validate reads the balance the embedded sandbox kept in DATA_DIR', async () => {
    // The state a gateway's embedded sandbox leaves behind, with 50.00 left.
    const sandbox = await startSandbox({ stateDir: join(dataDir, 'sandbox'), balance: '50.00' });
    await sandbox.close();
    const result = await payout(['batch', 'validate', sampleFile('payroll-valid.csv')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/balance\.insufficient\s+the valid rows total 50950\.60 RUB but only 50\.00 is available/);
  }, budget(1));

  it('validate checks the total against the embedded sandbox balance', async () => {
    const result = await payout(['batch', 'validate', sampleFile('payroll-valid.csv')], { SANDBOX_BALANCE: '100.00' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/balance\.insufficient\s+the valid rows total 50950\.60 RUB but only 100\.00 is available/);
  }, budget(1));

  it('run --yes pays the sample file with progress, then status and export report it, and the same file is refused again', async () => {
    const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes', '--concurrency', '4']);
    expect(run.code).toBe(4);
    // The progress bar goes to stderr, as progress should.
    expect(run.stderr).toMatch(/10\/10 rows \| paid 46950\.60 RUB \| failed 3/);
    expect(run.stdout).toMatch(/COMPLETED\s+7\s+46950\.60/);
    expect(run.stdout).toMatch(/FAILED\s+3\s+4000\.00/);
    const batchId = /Batch (b[0-9a-f]{11})/.exec(run.stdout)![1]!;

    const status = await payout(['batch', 'status', batchId]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('COMPLETED_WITH_FAILURES');

    const output = join(dataDir, 'results.csv');
    const exported = await payout(['batch', 'export', batchId, '-o', output]);
    expect(exported.code).toBe(0);
    const csv = await readFile(output, 'utf8');
    expect(csv.trim().split('\r\n')).toHaveLength(11);
    expect(csv).not.toContain('2200000000000004');

    const again = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes']);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('file.duplicate');
    // The whole message, hint included, and the flag that does it.
    expect(again.stdout).toMatch(new RegExp(`file\\.duplicate\\s+the same file was imported as batch ${batchId} on \\S+; import with force to pay it again$`, 'm'));
    expect(again.stdout).toContain(`payout batch run ${sampleFile('payroll-valid.csv')} --force`);
  }, budget(4));

  it('export --format excel and xlsx: columns in a Russian-locale spreadsheet, and a workbook; plain CSV has no BOM', async () => {
    const imported = await payout(['batch', 'run', sampleFile('payroll-1251-semicolon.csv')]);
    const batchId = /Batch (b[0-9a-f]{11})/.exec(imported.stdout)![1]!;
    const excel = join(dataDir, 'results-excel.csv');
    expect((await payout(['batch', 'export', batchId, '--format', 'excel', '-o', excel])).code).toBe(0);
    const bytes = await readFile(excel);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows: string[][] = parse(bytes, { delimiter: ';', bom: true, record_delimiter: '\r\n' });
    expect(rows[0]!.slice(0, 4)).toEqual(['line', 'reference', 'provider', 'amount']);
    expect(rows.slice(1).map((row) => row[3])).toEqual(expect.arrayContaining([expect.stringMatching(/^\d+,\d\d$/)]));
    expect(bytes.toString('utf8')).toContain('Иванов');

    const xlsx = join(dataDir, 'results.xlsx');
    expect((await payout(['batch', 'export', batchId, '--format', 'xlsx', '-o', xlsx])).code).toBe(0);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(xlsx);
    expect(typeof workbook.worksheets[0]!.getRow(2).getCell(4).value).toBe('number');

    const plain = await payout(['batch', 'export', batchId]);
    expect(plain.stdout).toMatch(/^line,reference,provider,amount,/);
    expect((await payout(['batch', 'export', batchId, '--format', 'ods'])).stderr).toMatch(/Allowed choices are csv, excel, xlsx/);
  }, budget(5));

  it('without a terminal asks for --yes instead of paying', async () => {
    const unconfirmed = await payout(['batch', 'run', sampleFile('payroll-1251-semicolon.csv')]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('pass --yes');
  }, budget(1));

  it('names a missing file and an unknown batch', async () => {
    expect((await payout(['batch', 'validate', 'nope.csv'])).stderr).toContain('no such file: nope.csv');
    const unknown = await payout(['batch', 'status', 'bnothere']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no batch bnothere');
  }, budget(2));
});

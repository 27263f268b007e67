import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Batch } from '../../src/db/generated/client.ts';
import { openDatabase } from '../../src/db/database.ts';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir } from '../support/cli-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';
import { startSandbox } from '../support/sandbox.ts';

/** The batches the CLI runs left in DATA_DIR's embedded database (opened once they have exited). */
async function batchesIn(): Promise<Batch[]> {
  const db = await openDatabase({ dataDir: dataDir() });
  try {
    await db.migrate();
    return await db.prisma.batch.findMany({ orderBy: { createdAt: 'asc' } });
  } finally {
    await db.close();
  }
}

// A data directory per test: no test reads what another one paid or stored. The CLI as a
// user runs it: its own process, its own embedded database and sandbox (test/support/cli-process.ts).
const { payout, dataDir, port } = cliInFreshDataDir('payout-cli-');

describe('payout CLI', () => {
  it(
    'validate prints the problems with line numbers and exits 1 for a file that is not payable',
    async () => {
      const result = await payout(['batch', 'validate', sampleFile('payroll-errors.csv')]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/18 rows, 2 valid, 16 invalid, 16 errors, 1 warning\b/);
      expect(result.stdout).toMatch(/^2\s+provider\s+error\s+provider\.unknown/m);
      expect(result.stdout).toMatch(/^14\s+reference\s+error\s+reference\.duplicate\s+"ERR-12" is also on line 13/m);
      // The page's words for the same file (issue 38): it has row errors, its valid rows can be paid.
      expect(result.stdout).toMatch(
        /The file has row errors: fix them, or pay its 2 valid rows \(.+\) only \(payout batch run --valid-only\)\./,
      );
    },
    budget(1),
  );

  it(
    'validate exits 0 for a payable file, and writes nothing',
    async () => {
      const result = await payout(['batch', 'validate', sampleFile('payroll-1251-semicolon.csv')]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('4 rows, 4 valid');
    },
    budget(1),
  );

  it(
    '--help lists the commands without reading the configuration or opening the database',
    async () => {
      const missing = join(dataDir(), 'never-made');
      // A configuration that would stop any command that read it.
      const result = await payout(['--help'], { DATA_DIR: missing, PORT: 'not a port' });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Usage: payout/);
      expect(result.stdout).toMatch(/batch\s/);
      const batchHelp = await payout(['batch', '--help'], { DATA_DIR: missing, PORT: 'not a port' });
      expect(batchHelp.stdout).toMatch(/validate \[options\] <file>|validate <file>/);
      expect(existsSync(missing)).toBe(false);
    },
    budget(2),
  );

  it(
    'validate writes nothing into DATA_DIR: no database, no keys, no sandbox state',
    async () => {
      // A DATA_DIR of its own, empty: the rig's comes with a migrated database in it.
      const empty = await mkdtemp(join(tmpdir(), 'payout-validate-'));
      try {
        const result = await payout(['batch', 'validate', sampleFile('payroll-errors.csv')], { DATA_DIR: empty });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(1);
        expect(result.stdout).toMatch(/18 rows, 2 valid, 16 invalid, 16 errors, 1 warning\b/);
        expect(await readdir(empty)).toEqual([]);
      } finally {
        await rm(empty, { recursive: true, force: true });
      }
    },
    budget(1),
  );

  it(
    'validate works with DATA_DIR pointing nowhere and a database that does not answer, and creates nothing',
    async () => {
      const nowhere = join(dataDir(), 'no', 'such', 'dir');
      const result = await payout(['batch', 'validate', sampleFile('payroll-1251-semicolon.csv')], {
        DATA_DIR: nowhere,
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing',
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('4 rows, 4 valid');
      expect(result.stdout).toContain('The file can be paid.');
      expect(existsSync(join(dataDir(), 'no'))).toBe(false);
    },
    budget(1),
  );

  it(
    'validate reads the balance the embedded sandbox kept in DATA_DIR',
    async () => {
      // The state a gateway's embedded sandbox leaves behind, with 50.00 left.
      const sandbox = await startSandbox({ stateDir: join(dataDir(), 'sandbox'), balance: '50.00' });
      await sandbox.close();
      const result = await payout(['batch', 'validate', sampleFile('payroll-valid.csv')]);
      // A warning, not a fault of the file: approval is where the balance is weighed.
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /warning\s+balance\.insufficient\s+the valid rows total 50,950\.60 RUB but only 50\.00 RUB is available/,
      );
    },
    budget(1),
  );

  it(
    'validate checks the total against the embedded sandbox balance',
    async () => {
      const result = await payout(['batch', 'validate', sampleFile('payroll-valid.csv')], { SANDBOX_BALANCE: '100.00' });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /warning\s+balance\.insufficient\s+the valid rows total 50,950\.60 RUB but only 100\.00 RUB is available \(commission comes on top\): top up before approval/,
      );
    },
    budget(1),
  );

  it(
    'run --yes pays the sample file with progress, then status and export report it, and the same file is refused again',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes', '--concurrency', '4']);
      expect(run.code).toBe(4);
      // The progress bar goes to stderr, as progress should.
      expect(run.stderr).toMatch(/10\/10 rows \| paid ₽46,950\.60 \| failed 3/);
      expect(run.stdout).toMatch(/COMPLETED\s+7\s+₽46,950\.60/);
      expect(run.stdout).toMatch(/FAILED\s+3\s+₽4,000\.00/);
      const batchId = /Batch (b[0-9a-f]{11})/.exec(run.stdout)![1]!;

      const status = await payout(['batch', 'status', batchId]);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('COMPLETED_WITH_FAILURES');

      const output = join(dataDir(), 'results.csv');
      const exported = await payout(['batch', 'export', batchId, '-o', output]);
      expect(exported.code).toBe(0);
      const csv = await readFile(output, 'utf8');
      expect(csv.trim().split('\r\n')).toHaveLength(11);
      expect(csv).not.toContain('2200000000000004');

      const again = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes']);
      expect(again.code).toBe(1);
      // The importer's problem names the paid batch; the CLI adds no hint to pay it again.
      expect(again.stdout).toMatch(new RegExp(`file\\.duplicate\\s+.*${batchId}`));
      expect(again.stdout).not.toMatch(/force/i);
      expect(again.stdout).toMatch(
        new RegExp(
          `This file is batch ${batchId}, imported .+; it is COMPLETED_WITH_FAILURES\\. What became of its rows: payout batch status ${batchId}`,
        ),
      );
      // Through the API the refused upload is kept, REJECTED, as the page's is; nothing more is paid.
      expect((await batchesIn()).map((b) => b.status)).toEqual(['COMPLETED_WITH_FAILURES', 'REJECTED']);
    },
    budget(4),
  );

  it(
    'export --format excel and xlsx: columns in a Russian-locale spreadsheet, and a workbook; plain CSV has no BOM',
    async () => {
      const imported = await payout(['batch', 'run', sampleFile('payroll-1251-semicolon.csv'), '--yes']);
      const batchId = /Batch (b[0-9a-f]{11})/.exec(imported.stdout)![1]!;
      const excel = join(dataDir(), 'results-excel.csv');
      expect((await payout(['batch', 'export', batchId, '--format', 'excel', '-o', excel])).code).toBe(0);
      const bytes = await readFile(excel);
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const rows: string[][] = parse(bytes, { delimiter: ';', bom: true, record_delimiter: '\r\n' });
      expect(rows[0]!.slice(0, 4)).toEqual(['line', 'reference', 'provider', 'amount']);
      expect(rows.slice(1).map((row) => row[3])).toEqual(expect.arrayContaining([expect.stringMatching(/^\d+,\d\d$/)]));
      expect(bytes.toString('utf8')).toContain('Иванов');

      const xlsx = join(dataDir(), 'results.xlsx');
      expect((await payout(['batch', 'export', batchId, '--format', 'xlsx', '-o', xlsx])).code).toBe(0);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(xlsx);
      expect(typeof workbook.worksheets[0]!.getRow(2).getCell(4).value).toBe('number');

      const plain = await payout(['batch', 'export', batchId]);
      expect(plain.stdout).toMatch(/^line,reference,provider,amount,/);
      expect((await payout(['batch', 'export', batchId, '--format', 'ods'])).stderr).toMatch(/Allowed choices are csv, excel, xlsx/);
    },
    budget(5),
  );

  it(
    'without a terminal asks for --yes before importing anything, so --yes then pays the file (finding 3)',
    async () => {
      const unconfirmed = await payout(['batch', 'run', sampleFile('payroll-1251-semicolon.csv')]);
      expect(unconfirmed.code).toBe(2);
      expect(unconfirmed.stderr).toMatch(/nothing was imported or paid\. Pass --yes/);
      expect(await batchesIn()).toEqual([]);
      const confirmed = await payout(['batch', 'run', sampleFile('payroll-1251-semicolon.csv'), '--yes']);
      expect(confirmed.stdout).not.toContain('file.duplicate');
      expect(confirmed.stdout).not.toContain('--force');
      expect(await batchesIn()).toEqual([expect.objectContaining({ status: expect.stringMatching(/^COMPLETED/), forced: false })]);
    },
    budget(2),
  );

  it(
    'names a missing file and an unknown batch',
    async () => {
      expect((await payout(['batch', 'validate', 'nope.csv'])).stderr).toContain('no such file: nope.csv');
      const unknown = await payout(['batch', 'status', 'bnothere']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no batch bnothere');
    },
    budget(2),
  );
});

/**
 * Findings 3 and 4: with GATEWAY_API_KEYS set the CLI is one more client of the keys, with
 * the same roles and maker-checker as GraphQL; before, it approved its own import as "cli".
 */
describe('payout CLI with GATEWAY_API_KEYS set', () => {
  const keysEnv = { GATEWAY_API_KEYS: namedApiKeysEnv({ olga: 'operator', adam: 'admin', april: 'approver', vera: 'viewer' }) };
  const payroll = () => join(dataDir(), 'payroll.csv');
  const keyFile = async (name: string) => {
    const file = join(dataDir(), `${name}.key`);
    await writeFile(file, `${apiKey(name)}\n`, { mode: 0o600 });
    return file;
  };
  beforeEach(async () => {
    await writeFile(payroll(), 'provider,amount,account\nbank-card-token,10.00,token_success\nbank-card-token,12.50,token_success\n');
  });

  it(
    'without a key is refused, reads included, in the user’s terms: no gateway answered, this configuration has keys (issue 38)',
    async () => {
      const run = await payout(['batch', 'run', payroll(), '--yes'], keysEnv);
      expect(run.code).toBe(2);
      // Not the port this command made up for itself: where it looked, and whose keys these are.
      expect(run.stderr).toMatch(
        /payout batch run acts as an API key, and none was given: this configuration has API keys \(GATEWAY_API_KEYS\) and answers only a key it knows, reads included \(no gateway answers at http:\/\/127\.0\.0\.1:\d+, so this command served the API itself/,
      );
      expect(run.stderr).toContain(`no gateway answers at http://127.0.0.1:${port()},`);
      expect(run.stderr).toContain('--key-file');
      const reconcile = await payout(['reconcile'], keysEnv);
      expect(reconcile.code).toBe(2);
      expect(reconcile.stderr).toMatch(/reconcile acts as an API key, and none was given/);
      expect(await batchesIn()).toEqual([]);
      // Reads go through the gateway's API (decision 20), which answers a key it knows, as GraphQL does.
      const status = await payout(['batch', 'status', 'bnothere'], keysEnv);
      expect(status.code).toBe(2);
      expect(status.stderr).toContain(
        `this configuration has API keys (GATEWAY_API_KEYS) and answers only a key it knows, reads included (no gateway answers at http://127.0.0.1:${port()}, so this command served the API itself, with the keys of GATEWAY_API_KEYS): give one with --key-file FILE`,
      );
      const viewer = await payout(['batch', 'status', 'bnothere', '--key-file', await keyFile('april')], keysEnv);
      expect(viewer.code).toBe(2);
      expect(viewer.stderr).toContain('no batch bnothere');
    },
    budget(3),
  );

  it(
    'refuses a key that is not configured, never printing it',
    async () => {
      const file = join(dataDir(), 'stranger.key');
      await writeFile(file, apiKey('stranger'));
      const run = await payout(['batch', 'run', payroll(), '--yes', '--key-file', file], keysEnv);
      expect(run.code).toBe(2);
      // Issue 38: it named "the gateway at http://127.0.0.1:<a port it made up>", a gateway the user never ran.
      expect(run.stderr).toContain(
        `the key in ${file} is not one of GATEWAY_API_KEYS (no gateway answers at http://127.0.0.1:${port()}, so this command served the API itself`,
      );
      expect(run.stderr.match(/127\.0\.0\.1:\d+/g)).toEqual([`127.0.0.1:${port()}`, `127.0.0.1:${port()}`]);
      expect(run.stderr + run.stdout).not.toContain(apiKey('stranger'));
    },
    budget(1),
  );

  it(
    'an uploader may not approve its own import (maker-checker); an approver key approves and pays; the audit names each key and role',
    async () => {
      const own = await payout(['batch', 'run', payroll(), '--yes', '--key-file', await keyFile('adam')], keysEnv);
      expect(own.code).toBe(1);
      expect(own.stderr).toMatch(
        /a batch must be approved by someone other than who uploaded it \(you are key:adam\); another approver or admin key approves it: payout batch approve b[0-9a-f]{11}/,
      );
      const [batch] = await batchesIn();
      expect(batch).toMatchObject({ status: 'VALIDATED', uploadedBy: 'key:adam', approvedBy: null });

      const byOperator = await payout(['batch', 'approve', batch!.id, '--yes', '--key-file', await keyFile('olga')], keysEnv);
      expect(byOperator.code).toBe(2);
      expect(byOperator.stderr).toContain('payout batch approve: key:olga has the operator role; this needs approver or admin');

      // The key named by the environment this time, as a deployment's service account would.
      const approved = await payout(['batch', 'approve', batch!.id, '--yes'], { ...keysEnv, PAYOUT_CLI_KEY_FILE: await keyFile('april') });
      expect(approved.code).toBe(0);
      expect(approved.stdout).toMatch(/COMPLETED\s+2\s+₽22\.50/);
      expect(await batchesIn()).toEqual([
        expect.objectContaining({ id: batch!.id, status: 'COMPLETED', uploadedBy: 'key:adam', approvedBy: 'key:april' }),
      ]);

      const db = await openDatabase({ dataDir: dataDir() });
      try {
        const events = await db.prisma.auditEvent.findMany({ orderBy: { id: 'asc' } });
        expect(events.map((e) => [e.action, e.actor, e.role])).toEqual([['batch.approve', 'key:april', 'approver']]);
        // A request of the gateway's like any other: its request id, not the former `via: cli`.
        expect(events[0]!.requestId).toEqual(expect.any(String));
      } finally {
        await db.close();
      }
    },
    budget(4),
  );

  it(
    'an operator key imports for approval; the same file again is offered by id, not imported twice',
    async () => {
      const olga = await keyFile('olga');
      const imported = await payout(['batch', 'run', payroll(), '--yes', '--key-file', olga], keysEnv);
      expect(imported.code).toBe(0);
      const batchId = /Batch (b[0-9a-f]{11}) waits for an approver \(another key\): payout batch approve \1/.exec(imported.stdout)?.[1];
      expect(batchId).toBeDefined();

      const again = await payout(['batch', 'run', payroll(), '--yes', '--key-file', olga], keysEnv);
      expect(again.code).toBe(1);
      expect(again.stdout).toMatch(
        new RegExp(
          `This file is batch ${batchId}, imported .+ by key:olga and waiting for approval\\. Approve it rather than importing it again: payout batch approve ${batchId}`,
        ),
      );
      expect(again.stdout).not.toMatch(/force/i);
      expect(await batchesIn()).toEqual([
        expect.objectContaining({ id: batchId, status: 'VALIDATED', uploadedBy: 'key:olga' }),
        expect.objectContaining({ status: 'REJECTED' }),
      ]);

      const viewer = await payout(['batch', 'run', payroll(), '--yes', '--key-file', await keyFile('vera')], keysEnv);
      expect(viewer.code).toBe(2);
      expect(viewer.stderr).toContain('payout batch run: key:vera has the viewer role; this needs operator or admin');
    },
    budget(3),
  );
});

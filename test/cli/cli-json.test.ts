import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir, interruptedRetryOfTwoFailedRows } from '../support/cli-process.ts';
import { apiKey, namedApiKeysEnv, testPrivateKeyFile } from '../support/keys.ts';
import { cliEnvFor, startSandbox, type TestSandbox } from '../support/sandbox.ts';

/**
 * Issue 20, "CLI in scripts": `payout --version`, `--json` on every command that prints
 * results, and the exit codes of the table in docs/guide/cli.md ("Exit codes"), each seen from outside: its
 * own process, the built dist/, the embedded database and sandbox in a fresh DATA_DIR.
 */
const { payout, start, withDatabase, dataDir } = cliInFreshDataDir('payout-cli-json-');

type Result = { code: number | null; stdout: string; stderr: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The card number of line 3 of samples/payroll-valid.csv: never in any output. */
const PAN = '2200000000000004';

/** stdout of a --json command: one JSON document on one line, and nothing else. */
function documentOf(result: Result): Json {
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.slice(0, -1)).not.toContain('\n');
  expect(result.stdout).not.toContain(PAN);
  return JSON.parse(result.stdout);
}

/** stderr of a --json command: JSON lines only (progress, log records, and an error last). */
function stderrLines(result: Result): Json[] {
  expect(result.stderr).not.toContain(PAN);
  return result.stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** A --json command that failed: nothing on stdout, its error object the last line of stderr, with the exit code it ended with. */
function errorOf(result: Result): { code: string; message: string; exitCode: number } {
  expect(result.stdout).toBe('');
  const last = stderrLines(result).at(-1);
  expect(last).toEqual({ error: { code: expect.any(String), message: expect.any(String), exitCode: result.code } });
  return last.error;
}

describe('payout --version and the exit codes of the table in docs/guide/cli.md', () => {
  it(
    '--version and -V print the version of package.json and exit 0',
    async () => {
      const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
      for (const flag of ['--version', '-V']) {
        const result = await payout([flag]);
        expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
      }
    },
    budget(2),
  );

  it(
    '2: every usage error, as text, and with --json as one JSON object on stderr',
    async () => {
      const text = [
        [['bogus'], /unknown command 'bogus'/],
        [[], /Usage: payout/],
        [['batch'], /Usage: payout batch/],
        [['batch', 'status'], /missing required argument 'batchId'/],
      ] as const;
      for (const [args, said] of text) {
        const result = await payout([...args]);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr).toMatch(said);
      }
      const json = [
        [['batch', 'status', 'bnothere', '--bogus', '--json'], 'cli.usage', /unknown option '--bogus'/],
        [['batch', 'export', 'bnothere', '--format', 'ods', '--json'], 'cli.usage', /Allowed choices are csv, excel, xlsx/],
        [['batch', 'run', 'payroll.csv', '--concurrency', '0', '--json'], 'cli.usage', /must be a whole number of at least 1/],
        [['batch', 'validate', 'nope.csv', '--json'], 'cli.usage', /no such file: nope\.csv/],
        // With --json nothing is asked on a terminal: without --yes, nothing is imported.
        [['batch', 'run', sampleFile('payroll-valid.csv'), '--json'], 'cli.usage', /Pass --yes/],
        [['batch', 'status', 'bnothere', '--json'], 'batch.not-found', /no batch bnothere/],
        [['sandbox', 'calls', '--json'], 'cli.usage', /no running gateway holds the embedded sandbox/],
      ] as const;
      for (const [args, code, said] of json) {
        const result = await payout([...args]);
        expect(result.code, args.join(' ')).toBe(2);
        const error = errorOf(result);
        expect(error.code).toBe(code);
        expect(error.message).toMatch(said);
      }
      expect(await withDatabase(({ prisma }) => prisma.batch.count())).toBe(0);
    },
    budget(11),
  );

  it(
    '0 and 1: validate --json of a payable file and of one that is not, with every problem',
    async () => {
      const payable = await payout(['batch', 'validate', sampleFile('payroll-valid.csv'), '--json']);
      expect(payable.code).toBe(0);
      expect(payable.stderr).toBe('');
      expect(documentOf(payable)).toMatchObject({
        file: 'payroll-valid.csv',
        payable: true,
        rowCount: 10,
        validCount: 10,
        totalAmount: '50950.60',
        currency: 'RUB',
        problems: [
          { line: 3, column: 'pan', severity: 'warning', code: 'pan.normalised', message: expect.stringContaining('2200********0004') },
        ],
      });
      const refused = await payout(['batch', 'validate', sampleFile('payroll-errors.csv'), '--json']);
      expect(refused.code).toBe(1);
      const doc = documentOf(refused);
      expect(doc).toMatchObject({ payable: false, rowCount: 18, validCount: 2, invalidCount: 16, errorCount: 16, warningCount: 1 });
      expect(doc.problems).toHaveLength(17);
      expect(doc.problems).toContainEqual({
        line: 14,
        column: 'reference',
        severity: 'error',
        code: 'reference.duplicate',
        message: expect.stringContaining('"ERR-12" is also on line 13'),
      });
    },
    budget(2),
  );

  it(
    '3: a command that cannot finish (the database does not answer) exits 3, not 1, and its JSON error holds no password',
    async () => {
      const result = await payout(['batch', 'status', 'bnothere', '--json'], {
        DATABASE_URL: 'postgres://bob:s3cret-pw@127.0.0.1:1/nothing',
      });
      expect(result.code).toBe(3);
      const error = errorOf(result);
      expect(error.code).toBe('cli.failed');
      // In words (decision 0028), not the driver's ECONNREFUSED.
      expect(error.message).toMatch(/^the database server cannot be reached: /);
      expect(result.stderr).not.toContain('s3cret-pw');
    },
    budget(1),
  );

  it(
    '130: Ctrl-C during a run stops starting payments; the document says interrupted, and the progress lines came on stderr',
    async () => {
      // Enough rows that the run is still paying when the first progress line arrives; amounts differ, so none repeats another.
      const file = join(dataDir(), 'payroll.csv');
      const rows = Array.from({ length: 300 }, (_, i) => `bank-card-token,${(10 + i / 100).toFixed(2)},token_success`);
      await writeFile(file, `provider,amount,account\n${rows.join('\n')}\n`);
      const run = start(['batch', 'run', file, '--yes', '--json']);
      await new Promise<void>((resolve) => {
        const seen = () => {
          if (!run.output.stderr.includes('"progress":"batch"')) return;
          run.child.stderr.off('data', seen);
          resolve();
        };
        run.child.stderr.on('data', seen);
        seen();
      });
      run.child.kill('SIGINT');
      const result = await run.done;
      expect(result.code).toBe(130);
      const doc = documentOf(result);
      expect(doc).toMatchObject({ outcome: 'paid', interrupted: true, batch: { status: 'RUNNING', rowCount: 300 } });
      const progress = stderrLines(result).filter((line) => 'progress' in line);
      expect(progress[0]).toMatchObject({ progress: 'batch', batchId: doc.batch.id, total: 300, value: 0, paid: '0.00', failed: 0 });
      expect(progress.at(-1)!.stopping).toBe(true);
    },
    budget(1),
  );
});

describe('--json: one document per command', () => {
  it(
    'batch run, status, export, reconcile and the sandbox commands on the embedded sandbox',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes', '--json']);
      expect(run.code).toBe(4);
      const ran = documentOf(run);
      expect(ran).toMatchObject({
        outcome: 'paid',
        interrupted: false,
        validation: { file: 'payroll-valid.csv', payable: true, validCount: 10, totalAmount: '50950.60' },
        batch: {
          status: 'COMPLETED_WITH_FAILURES',
          rowCount: 10,
          totalAmount: '50950.60',
          // Through the API the key-less caller is the gateway's anonymous local user (docs/decisions/0020-the-cli-is-a-client.md).
          uploadedBy: 'anonymous',
          counts: [
            { status: 'COMPLETED', count: 7, amount: '46950.60' },
            { status: 'FAILED', count: 3, amount: '4000.00' },
          ],
          waiting: null,
        },
      });
      const progress = stderrLines(run);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.at(-1)).toMatchObject({ progress: 'batch', value: 10, total: 10, paid: '46950.60', failed: 3 });
      const batchId: string = ran.batch.id;

      const status = await payout(['batch', 'status', batchId, '--json']);
      expect(status.code).toBe(0);
      expect(documentOf(status)).toEqual({ batch: { ...ran.batch, throughput: expect.any(Number) } });

      const rows = await payout(['batch', 'export', batchId, '--json']);
      expect(rows.code).toBe(0);
      const exported = documentOf(rows);
      expect(exported).toMatchObject({ batchId, kind: 'results' });
      expect(exported.rows).toHaveLength(10);
      expect(exported.rows[1]).toMatchObject({
        line: '3',
        payment_id: `${batchId}-3`,
        status: 'COMPLETED',
        recipient: expect.stringContaining('pan=2200********0004'),
      });

      const problems = await payout(['batch', 'export', batchId, '--problems', '--json']);
      expect(documentOf(problems)).toEqual({
        batchId,
        kind: 'problems',
        rows: [expect.objectContaining({ line: '3', code: 'pan.normalised' })],
      });

      const output = join(dataDir(), 'results.xlsx');
      const toFile = await payout(['batch', 'export', batchId, '-o', output, '--format', 'xlsx', '--json']);
      expect(toFile.code).toBe(0);
      expect(documentOf(toFile)).toEqual({ batchId, kind: 'results', format: 'xlsx', output, rows: 10 });
      expect((await readFile(output)).subarray(0, 2).toString()).toBe('PK');

      const again = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes', '--json']);
      expect(again.code).toBe(1);
      expect(documentOf(again)).toMatchObject({
        outcome: 'duplicate',
        batch: null,
        validation: { problems: expect.arrayContaining([expect.objectContaining({ code: 'file.duplicate' })]) },
      });

      const clean = await payout(['reconcile', '--today', '--json']);
      expect(clean.code).toBe(0);
      expect(documentOf(clean)).toMatchObject({
        run: {
          status: 'COMPLETED',
          matchedCount: 10,
          openCount: 0,
          upstream: { count: 10, amount: '50950.60', paidCount: 7 },
          gateway: { count: 10, paidAmount: '46950.60' },
        },
        discrepancies: [],
      });
      expect(stderrLines(clean).at(-1)).toMatchObject({ progress: 'reconcile', phase: 'done' });

      const altered = await payout([
        'sandbox',
        'alter',
        `${batchId}-3`,
        '--status',
        'FAILED',
        '--error-code',
        'BILLING_DECLINED',
        '--json',
      ]);
      expect(altered.code).toBe(0);
      expect(documentOf(altered)).toMatchObject({
        payment: {
          paymentId: `${batchId}-3`,
          status: { value: 'FAILED', errorCode: 'BILLING_DECLINED' },
          amount: '12500.50',
          recipient: { fields: { pan: '2200********0004' } },
        },
      });
      const behind = await payout(['sandbox', 'pay-behind', '--amount', '1500.00', '--json']);
      expect(behind.code).toBe(0);
      expect(documentOf(behind)).toMatchObject({ created: 1, amount: '1500.00', paymentIds: [expect.any(String)] });
      const listed = await payout(['sandbox', 'payments', '--json']);
      expect(listed.code).toBe(0);
      expect(documentOf(listed).payments).toHaveLength(11);

      const found = await payout(['reconcile', '--today', '--json']);
      expect(found.code).toBe(1);
      const reconciled = documentOf(found);
      expect(reconciled.run).toMatchObject({
        status: 'COMPLETED',
        openCount: 2,
        countsByCode: { UNKNOWN_TO_GATEWAY: 1, STATUS_DIFFERS: 1 },
      });
      expect(reconciled.discrepancies.map((d: Json) => [d.code, d.payment_id])).toEqual(
        expect.arrayContaining([
          ['STATUS_DIFFERS', `${batchId}-3`],
          ['UNKNOWN_TO_GATEWAY', expect.any(String)],
        ]),
      );

      const balance = await payout(['sandbox', 'balance', '--json']);
      expect(balance.code).toBe(0);
      expect(documentOf(balance)).toMatchObject({ available: expect.stringMatching(/^\d+\.\d\d$/), currency: 'RUB' });
      const set = await payout(['sandbox', 'balance', '--set', '1000.00', '--json']);
      expect(documentOf(set)).toMatchObject({ balance: '1000.00', previousBalance: expect.stringMatching(/^\d+\.\d\d$/) });
    },
    budget(14),
  );

  it(
    'held rows: --include-flagged, the former name of --include-held (the one --help shows), still pays them; the document gives heldCount and the former flaggedCount',
    async () => {
      for (const command of ['run', 'approve']) {
        const help = await payout(['batch', command, '--help']);
        expect(help.stdout).toContain('--include-held');
        expect(help.stdout).not.toContain('--include-flagged');
      }
      const first = join(dataDir(), 'first.csv');
      await writeFile(first, 'provider,amount,account\nbank-card-token,10.00,token_success\nbank-card-token,11.00,token_success\n');
      expect((await payout(['batch', 'run', first, '--yes', '--json'])).code).toBe(0);
      // The same two payments in another order, and a new one: two rows are held.
      const copy = join(dataDir(), 'copy.csv');
      await writeFile(
        copy,
        'provider,amount,account\nbank-card-token,11.00,token_success\nbank-card-token,10.00,token_success\nbank-card-token,12.00,token_success\n',
      );
      const run = await payout(['batch', 'run', copy, '--yes', '--include-flagged', '--json']);
      expect(run.code).toBe(0);
      const held = { heldCount: 2, heldAmount: '21.00', includeHeld: true };
      const former = { flaggedCount: 2, flaggedAmount: '21.00', includeFlagged: true };
      expect(documentOf(run)).toMatchObject({
        outcome: 'paid',
        validation: { heldCount: 2, heldAmount: '21.00', flaggedCount: 2, flaggedAmount: '21.00' },
        batch: { ...held, ...former, status: 'COMPLETED', counts: [{ status: 'COMPLETED', count: 3, amount: '33.00' }] },
      });
    },
    budget(6),
  );

  it(
    'pause, resume and review (and --mark) of a running batch',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes']);
      expect(run.code).toBe(4);
      const { batchId } = await withDatabase(interruptedRetryOfTwoFailedRows);

      const paused = await payout(['batch', 'pause', batchId, '--json']);
      expect(paused.code).toBe(0);
      // JSON lines only: the one notice that no gateway was running, so the command served the API itself.
      expect(
        paused.stderr
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ).toEqual([{ notice: expect.stringMatching(/^No gateway answers at /) }]);
      expect(documentOf(paused)).toMatchObject({
        batch: { id: batchId, status: 'PAUSED', secondsLeft: null, waiting: { reason: 'PERSON', by: 'local', since: expect.any(String) } },
      });
      const twice = await payout(['batch', 'pause', batchId, '--json']);
      expect(twice.code).toBe(1);
      expect(errorOf(twice)).toMatchObject({
        code: expect.stringMatching(/^batch\./),
        message: expect.stringContaining('a PAUSED batch cannot be paused'),
      });

      const resumed = await payout(['batch', 'resume', batchId, '--json']);
      expect(resumed.code).toBe(4);
      expect(documentOf(resumed)).toMatchObject({
        resumed: true,
        interrupted: false,
        batch: { id: batchId, status: 'COMPLETED_WITH_FAILURES' },
      });

      const [settles, stays] = await withDatabase(async ({ prisma }) => {
        const paid = await prisma.batchItem.findMany({ where: { batchId, status: 'COMPLETED' }, orderBy: { line: 'asc' }, take: 2 });
        await prisma.batchItem.updateMany({
          where: { id: { in: paid.map((row) => row.id) } },
          data: { status: 'NEEDS_REVIEW', errorCode: 'payout.payment.not-found', errorMessage: 'could not be settled' },
        });
        return paid.map((row) => ({ line: row.line, paymentId: row.paymentId }));
      });
      expect((await payout(['sandbox', 'alter', stays!.paymentId, '--status', 'CREATED'])).code).toBe(0);
      const review = await payout(['batch', 'review', batchId, '--json']);
      expect(review.code).toBe(4);
      expect(documentOf(review)).toEqual({
        batchId,
        batchStatus: expect.any(String),
        settled: 1,
        unsettled: 1,
        rows: [
          { line: settles!.line, paymentId: settles!.paymentId, verdict: 'paid', status: 'COMPLETED', message: expect.any(String) },
          { line: stays!.line, paymentId: stays!.paymentId, verdict: 'unknown', status: 'NEEDS_REVIEW', message: expect.any(String) },
        ],
      });
      const marked = await payout([
        'batch',
        'review',
        batchId,
        '--line',
        String(stays!.line),
        '--mark',
        'do-not-pay',
        '--reason',
        'paid by hand',
        '--json',
      ]);
      expect(marked.code).toBe(0);
      expect(documentOf(marked)).toMatchObject({
        batchId,
        line: stays!.line,
        paymentId: stays!.paymentId,
        mark: 'do-not-pay',
        status: 'CANCELLED',
      });
    },
    budget(8),
  );

  it(
    'with keys: approve, and the refusals with their codes (maker-checker 1, a role that may not 2, read-only 2)',
    async () => {
      const env = { GATEWAY_API_KEYS: namedApiKeysEnv({ olga: 'operator', adam: 'admin', april: 'approver' }) };
      const keyFile = async (name: string) => {
        const file = join(dataDir(), `${name}.key`);
        await writeFile(file, `${apiKey(name)}\n`, { mode: 0o600 });
        return file;
      };
      const file = join(dataDir(), 'payroll.csv');
      await writeFile(file, 'provider,amount,account\nbank-card-token,10.00,token_success\nbank-card-token,12.50,token_success\n');

      const readOnly = await payout(['batch', 'run', file, '--yes', '--json'], env);
      expect(readOnly.code).toBe(2);
      expect(errorOf(readOnly).code).toBe('auth.read-only');

      const own = await payout(['--key-file', await keyFile('adam'), 'batch', 'run', file, '--yes', '--json'], env);
      expect(own.code).toBe(1);
      const refusal = errorOf(own);
      expect(refusal.code).toBe('batch.same-person');
      expect(own.stderr).not.toContain(apiKey('adam'));
      const batchId = /payout batch approve (b[0-9a-f]{11})/.exec(refusal.message)![1]!;

      const operator = await payout(['batch', 'approve', batchId, '--yes', '--json', '--key-file', await keyFile('olga')], env);
      expect(operator.code).toBe(2);
      expect(errorOf(operator).code).toBe('auth.forbidden');

      const approved = await payout(['batch', 'approve', batchId, '--yes', '--json', '--key-file', await keyFile('april')], env);
      expect(approved.code).toBe(0);
      expect(documentOf(approved)).toMatchObject({
        interrupted: false,
        batch: {
          id: batchId,
          status: 'COMPLETED',
          uploadedBy: 'key:adam',
          approvedBy: 'key:april',
          counts: [{ status: 'COMPLETED', count: 2, amount: '22.50' }],
        },
      });
    },
    budget(4),
  );
});

describe('--json: sandbox outage and calls, on a sandbox at PAYOUT_API_URL', () => {
  let sb: TestSandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    sb = await startSandbox({ balance: '5000.00' });
    env = cliEnvFor(sb);
  });
  afterAll(() => sb.close());

  it(
    'outage set, shown and cleared; calls counted',
    async () => {
      const set = await payout(['sandbox', 'outage', '--status', '503', '--for', '2m', '--only', 'create', '--json'], env);
      expect(set.code).toBe(0);
      expect(documentOf(set)).toMatchObject({ outage: { mode: 'status', status: 503, kinds: ['create'], until: expect.any(String) } });
      const shown = await payout(['sandbox', 'outage', '--json'], env);
      expect(documentOf(shown)).toMatchObject({ outage: { mode: 'status', secondsLeft: expect.any(Number) } });
      const cleared = await payout(['sandbox', 'outage', '--clear', '--json'], env);
      expect(documentOf(cleared)).toMatchObject({ outage: null, ended: { mode: 'status' } });
      const none = await payout(['sandbox', 'outage', '--json'], env);
      expect(documentOf(none)).toEqual({ outage: null });
      const calls = await payout(['sandbox', 'calls', '--json'], env);
      expect(calls.code).toBe(0);
      expect(documentOf(calls)).toMatchObject({
        since: expect.any(String),
        total: expect.any(Number),
        byKind: expect.objectContaining({ create: expect.any(Number) }),
        reset: false,
      });
      const refused = await payout(['sandbox', 'outage', '--status', '500', '--for', '1m', '--json'], env);
      expect(refused.code).toBe(2);
      expect(errorOf(refused).message).toMatch(/must be 503 or 429/);
    },
    budget(6),
  );
});

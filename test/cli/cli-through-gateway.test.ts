import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { budget, startPayout, type PayoutResult } from '../support/cli-process.ts';
import { uploadBatch } from '../support/batch-graphql.ts';
import { eventually } from '../support/eventually.ts';
import { freePort, GatewayProcess, killAllGateways } from '../support/gateway-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * The CLI is a client of the gateway (docs/decisions/0020-the-cli-is-a-client.md): with
 * `npm start` running it acts through it instead of failing on the database lock, and
 * against a remote gateway it needs an API key, not database credentials, and meets the
 * same roles as GraphQL.
 */
const sample = new URL('../../samples/payroll-valid.csv', import.meta.url).pathname;
const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'payout-cli-gw-'));
  dirs.push(dir);
  return dir;
};

afterEach(async () => {
  await killAllGateways();
});
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Only what a person's shell would hold for these commands: no test process environment. */
const started = (args: string[], env: Record<string, string>) => startPayout(args, { ...env, LANG: 'en_US.UTF-8', TZ: 'UTC' });
const payout = (args: string[], env: Record<string, string>): Promise<PayoutResult> => started(args, env).done;
const json = (result: PayoutResult) => JSON.parse(result.stdout) as Record<string, any>;
const lastError = (result: PayoutResult) =>
  (JSON.parse(result.stderr.trim().split('\n').at(-1)!) as { error: Record<string, unknown> }).error;

/** A limit for a broken run only: the conditions below are reached in seconds. */
const CONDITION_MS = 120_000;

type BatchNow = { status: string; waiting: { reason: string } | null; counts: Array<{ status: string; count: number }> };
/** The batch as the gateway's GraphQL says it is now (with the key, when the gateway has keys). */
async function batchNow(url: string, id: string, key?: string): Promise<BatchNow> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
    body: JSON.stringify({
      query: 'query($id: ID!) { batch(id: $id) { status waiting { reason } counts { status count } } }',
      variables: { id },
    }),
  });
  const body = (await response.json()) as { data: { batch: BatchNow } };
  return body.data.batch;
}

/** The id of the batch a started `run --json` or `approve --json` follows, from its first progress line on stderr. */
async function followedBatch(command: { output: { stderr: string }; running: () => boolean }): Promise<string> {
  return eventually(() => {
    const id = /"progress":"batch"[^\n]*"batchId":"(b[0-9a-f]+)"/.exec(command.output.stderr)?.[1];
    if (id !== undefined) return id;
    if (!command.running()) return new Error(`it ended before following a batch:\n${command.output.stderr}`);
    throw new Error(`no progress yet:\n${command.output.stderr}`);
  }, CONDITION_MS).then((found) => {
    if (found instanceof Error) throw found;
    return found;
  });
}

/**
 * The partner answers 503 to every payment call (create, execute, read; reading the providers,
 * which an import does, too) while the balance still answers (approval reads it): nothing is
 * paid and nothing fails, an approved batch stays RUNNING (docs/decisions/0011) until the outage
 * is cleared. `env` reaches the sandbox the
 * gateway embeds, through the control file in its DATA_DIR.
 */
async function partnerDown(env: Record<string, string>): Promise<void> {
  const set = await payout(
    ['sandbox', 'outage', '--status', '503', '--for', '30m', '--retry-after', '1', '--only', 'create,execute,read'],
    env,
  );
  expect(set.code, set.stderr).toBe(0);
}
async function partnerBack(env: Record<string, string>): Promise<void> {
  const cleared = await payout(['sandbox', 'outage', '--clear'], env);
  expect(cleared.code, cleared.stderr).toBe(0);
}

type SandboxPayment = { paymentId: string; status: { value: string }; amount: string };
/** What the sandbox holds of a batch's payments (created from yesterday to tomorrow, UTC: a run across midnight included). */
async function sandboxPaymentsOf(batchId: string, env: Record<string, string>): Promise<SandboxPayment[]> {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const listed = await payout(['sandbox', 'payments', '--from', day(-1), '--to', day(1), '--json'], env);
  expect(listed.code, listed.stderr).toBe(0);
  return (json(listed).payments as SandboxPayment[]).filter((payment) => payment.paymentId.startsWith(`${batchId}-`));
}

/**
 * Every row paid once: each COMPLETED row (as `payment search` reads the gateway) is exactly
 * one COMPLETED payment of the same amount at the sandbox, and the sandbox completed nothing else of the batch.
 */
async function expectEachRowPaidOnce(
  batchId: string,
  cliEnv: Record<string, string>,
  sandboxEnv: Record<string, string>,
  paid: number,
): Promise<void> {
  const search = await payout(['payment', 'search', '--batch', batchId, '--limit', '99', '--json'], cliEnv);
  expect(search.code, search.stderr).toBe(0);
  const rows = (json(search).payments as Array<{ paymentId: string; status: string; amount: string }>).filter(
    (row) => row.status === 'COMPLETED',
  );
  expect(rows).toHaveLength(paid);
  const upstream = (await sandboxPaymentsOf(batchId, sandboxEnv)).filter((payment) => payment.status.value === 'COMPLETED');
  expect(upstream.map((payment) => [payment.paymentId, payment.amount]).sort()).toEqual(
    rows.map((row) => [row.paymentId, row.amount]).sort(),
  );
}

/** A payroll file uploaded through the gateway's GraphQL (importBatch), as the page uploads it. */
async function upload(url: string, key?: string, file = sample): Promise<string> {
  return (await uploadBatch(url, await readFile(file), { ...(key === undefined ? {} : { key }), fileName: basename(file) })).id;
}

/** `npm start` in a fresh DATA_DIR on a free port, and the environment a CLI beside it has (the same DATA_DIR and PORT). */
async function besideNpmStart() {
  const dataDir = await tempDir();
  const port = await freePort();
  const gateway = GatewayProcess.spawn('npm start', { DATA_DIR: dataDir, PORT: String(port) });
  const url = await gateway.ready;
  return { dataDir, gateway, url, env: { DATA_DIR: dataDir, PORT: String(port) } };
}

describe('beside npm start (embedded database, no keys)', () => {
  it('lists, shows, refuses, and discards through the running gateway, which holds the database', { timeout: budget(6) }, async () => {
    const { gateway, url, env } = await besideNpmStart();
    const batchId = await upload(url);

    const list = await payout(['batch', 'list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(json(list).batches).toEqual([
      expect.objectContaining({ id: batchId, status: 'VALIDATED', validCount: 10, totalAmount: '50950.60', currency: 'RUB' }),
    ]);
    // Not the database: the gateway answered (no notice of opening it).
    expect(list.stderr).not.toMatch(/opens .*database/);

    const text = await payout(['batch', 'list'], env);
    expect(text.stdout).toMatch(new RegExp(`${batchId}\\s+VALIDATED\\s+Nov 27|${batchId}\\s+VALIDATED`));
    expect(text.stdout).toContain('₽50,950.60');
    expect(text.stdout).not.toMatch(/\d{4}-\d\d-\d\dT/);

    const show = await payout(['batch', 'show', batchId], env);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`Batch ${batchId} (payroll-valid.csv): VALIDATED`);
    expect(show.stdout).toMatch(/PENDING\s+10\s+₽50,950\.60/);

    const pause = await payout(['batch', 'pause', batchId, '--json'], env);
    expect(pause.code).toBe(1);
    expect(JSON.parse(pause.stderr.trim().split('\n').at(-1)!)).toEqual({
      error: expect.objectContaining({ code: 'batch.not-pausable', exitCode: 1 }),
    });

    const discard = await payout(['batch', 'discard', batchId], env);
    expect(discard.code, discard.stderr).toBe(0);
    expect(discard.stdout).toContain('Discarded: nothing of it was sent.');
    const cancelled = json(await payout(['batch', 'list', '--status', 'CANCELLED', '--json'], env));
    expect(cancelled.batches.map((b: { id: string }) => b.id)).toEqual([batchId]);
    expect(gateway.alive).toBe(true);
  });

  it(
    'runs, shows, exports and finds payments through the running gateway: the export is the same bytes as the page',
    { timeout: budget(8) },
    async () => {
      const { dataDir, gateway, url, env } = await besideNpmStart();

      // The gateway's own workers pay; the CLI follows the batch through the API.
      const run = await payout(['batch', 'run', sample, '--yes', '--json'], env);
      expect(run.code, run.stderr).toBe(4);
      expect(run.stderr).not.toMatch(/opens .*database/);
      const ran = json(run);
      expect(ran).toMatchObject({
        outcome: 'paid',
        batch: {
          status: 'COMPLETED_WITH_FAILURES',
          counts: [
            { status: 'COMPLETED', count: 7 },
            { status: 'FAILED', count: 3 },
          ],
        },
      });
      const batchId: string = ran.batch.id;

      const status = await payout(['batch', 'status', batchId], env);
      expect(status.stdout).toMatch(/COMPLETED\s+7\s+₽46,950\.60/);

      const output = join(dataDir, 'results.csv');
      const exported = await payout(['batch', 'export', batchId, '-o', output], env);
      expect(exported.code, exported.stderr).toBe(0);
      const page = Buffer.from(await (await fetch(`${url}/batches/${batchId}/results.csv`)).arrayBuffer());
      // Finding 9: the BOM the page's file has, so a spreadsheet reads the Cyrillic as UTF-8.
      expect([...page.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(await readFile(output)).toEqual(page);

      const again = await payout(['batch', 'run', sample, '--yes'], env);
      expect(again.code).toBe(1);
      expect(again.stdout).toMatch(new RegExp(`This file is batch ${batchId}, imported .+; it is COMPLETED_WITH_FAILURES`));
      expect(again.stdout).not.toMatch(/force|\d{4}-\d\d-\d\dT/);

      const found = await payout(['payment', 'search', '--batch', batchId, '--status', 'FAILED', '--json'], env);
      expect(found.code, found.stderr).toBe(0);
      expect(json(found).payments).toHaveLength(3);
      const paymentId = `${batchId}-3`;
      const got = await payout(['payment', 'get', paymentId, '--json'], env);
      expect(got.code, got.stderr).toBe(0);
      expect(json(got).payment).toMatchObject({ paymentId, status: 'COMPLETED', amount: '12500.50', batchId, batchRow: 3 });
      expect(got.stdout).not.toContain('2200000000000004');
      expect(gateway.alive).toBe(true);
    },
  );

  it(
    'pauses, resumes and cancels a RUNNING batch through the running gateway, held RUNNING by a partner outage; every row paid once',
    { timeout: budget(16) },
    async () => {
      const { dataDir, gateway, url, env } = await besideNpmStart();
      // Imported (as the page imports) while the partner still answers: an import reads the providers.
      const batchId = await upload(url);
      const other = join(dataDir, 'other.csv');
      await writeFile(
        other,
        'provider,amount,account\nbank-card-token,21.00,token_success\nbank-card-token,22.00,token_success\nbank-card-token,23.00,token_success\n',
      );
      const otherId = await upload(url, undefined, other);
      await partnerDown(env);

      // approve follows the batch; the outage holds it RUNNING with nothing paid. --ignore-balance:
      // the failing reads may open the partner breaker at any moment, and then the balance cannot be read.
      const approve = started(['batch', 'approve', batchId, '--yes', '--ignore-balance', '--json'], env);
      expect(await followedBatch(approve)).toBe(batchId);
      const held = await batchNow(url, batchId);
      expect(held.status).toBe('RUNNING');
      expect(held.counts.map((c) => c.status)).not.toContain('COMPLETED');

      const pause = await payout(['batch', 'pause', batchId, '--json'], env);
      expect(pause.code, pause.stderr).toBe(0);
      expect(pause.stderr).not.toMatch(/opens .*database/);
      expect(json(pause).batch).toMatchObject({ id: batchId, status: 'PAUSED', waiting: { reason: 'PERSON', by: 'local' } });
      expect(json(pause).batch.counts.map((c: { status: string }) => c.status)).not.toContain('COMPLETED');
      // Paused by a person: approve stops following, the batch left PAUSED, and says so by its exit code (5, not 4).
      const followed = await approve.done;
      expect(followed.code, followed.stderr).toBe(5);
      expect(json(followed)).toMatchObject({
        interrupted: false,
        stopped: { action: 'paused', by: 'local' },
        batch: { id: batchId, status: 'PAUSED' },
      });
      const again = await payout(['batch', 'pause', batchId, '--json'], env);
      expect(again.code).toBe(1);
      expect(lastError(again)).toMatchObject({ code: 'batch.not-pausable', exitCode: 1 });

      // The second batch, cancelled while RUNNING: its rows were never sent, so none is paid.
      const otherApprove = started(['batch', 'approve', otherId, '--yes', '--ignore-balance', '--json'], env);
      expect(await followedBatch(otherApprove)).toBe(otherId);
      expect((await batchNow(url, otherId)).status).toBe('RUNNING');
      const cancel = await payout(['batch', 'cancel', otherId], env);
      expect(cancel.code, cancel.stderr).toBe(0);
      expect(cancel.stdout).toContain(`Batch ${otherId} (other.csv): CANCELLED`);
      expect(cancel.stdout).toContain(
        'Cancelled: nothing more of it is sent, by any process; payments that were on their way have ended (counts above).',
      );
      const otherFollowed = await otherApprove.done;
      expect(otherFollowed.code, otherFollowed.stderr).toBe(5);
      expect(json(otherFollowed)).toMatchObject({
        stopped: { action: 'cancelled', by: 'local' },
        batch: { id: otherId, status: 'CANCELLED' },
      });
      // A row whose create was under way when it was cancelled (CREATING) is the worker's to end:
      // while the breaker is open nothing is sent, so that happens once the partner is back (below).

      // resume sets it RUNNING and follows; once the partner is back the gateway's workers pay it.
      const resume = started(['batch', 'resume', batchId, '--json'], env);
      await eventually(async () => expect((await batchNow(url, batchId)).status).toBe('RUNNING'), CONDITION_MS);
      expect(resume.running()).toBe(true);
      await partnerBack(env);
      const resumed = await resume.done;
      expect(resumed.code, resumed.stderr).toBe(4);
      expect(json(resumed)).toMatchObject({
        resumed: true,
        interrupted: false,
        batch: {
          id: batchId,
          status: 'COMPLETED_WITH_FAILURES',
          counts: [
            { status: 'COMPLETED', count: 7 },
            { status: 'FAILED', count: 3 },
          ],
        },
      });
      await expectEachRowPaidOnce(batchId, env, env, 7);
      await eventually(
        async () => expect((await batchNow(url, otherId)).counts).toEqual([{ status: 'CANCELLED', count: 3 }]),
        CONDITION_MS,
      );
      // Nothing of the cancelled batch was paid. A row whose create was in doubt when it was cancelled
      // may have been created at the partner once it was back (the same paymentId, sent again): it
      // stays READY there, never executed, and expires (decision 5; the fresh-clone CI met this).
      const created = await sandboxPaymentsOf(otherId, env);
      expect(
        created.filter(
          (payment) => payment.status.value !== 'READY' && payment.status.value !== 'CREATED' && payment.status.value !== 'EXPIRED',
        ),
      ).toEqual([]);
      expect(gateway.alive).toBe(true);
    },
  );

  it('serves the API itself, saying so, when no gateway answers', { timeout: budget(2) }, async () => {
    const env = { DATA_DIR: await tempDir(), PORT: String(await freePort()) };
    const list = await payout(['batch', 'list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(json(list)).toEqual({ batches: [], more: false });
    expect(list.stderr).toContain(
      `{"notice":"No gateway answers at http://127.0.0.1:${env.PORT}; this command opens the embedded database in ${env.DATA_DIR} itself."}`,
    );
  });

  it('fails with exit 3, naming the address, when PAYOUT_GATEWAY_URL does not answer', { timeout: budget(1) }, async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const list = await payout(['batch', 'list'], { DATA_DIR: await tempDir(), PAYOUT_GATEWAY_URL: url });
    expect(list.code).toBe(3);
    expect(list.stderr).toContain(`no gateway answers at ${url} (ECONNREFUSED): start it, or unset PAYOUT_GATEWAY_URL`);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('against a remote gateway on PostgreSQL with keys', () => {
  // A skipped describe's body still runs when the file is collected: nothing here may read
  // TEST_DATABASE_URL until a hook or a test does (npm test without it failed on new URL).
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  const name = `payout_cli_gw_${randomBytes(5).toString('hex')}`;
  let databaseUrl = '';
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  beforeAll(async () => {
    databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
    await admin(`CREATE DATABASE "${name}"`);
  });
  afterAll(async () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));

  it('acts with the key it is given, refused as GraphQL refuses', { timeout: budget(6) }, async () => {
    const dir = await tempDir();
    const keys = { olga: 'operator', april: 'approver', vera: 'viewer' } as const;
    const gateway = GatewayProcess.spawn('gateway', {
      DATA_DIR: dir,
      PORT: '0',
      DATABASE_URL: databaseUrl,
      GATEWAY_API_KEYS: namedApiKeysEnv(keys),
    });
    const url = await gateway.ready;
    const batchId = await upload(url, apiKey('olga'));
    const keyFile = async (who: keyof typeof keys) => {
      const file = join(dir, `${who}.key`);
      await writeFile(file, `${apiKey(who)}\n`, { mode: 0o600 });
      return file;
    };
    // An operator's machine: the gateway's address and a key, no database credentials.
    const remote = { PAYOUT_GATEWAY_URL: url, DATA_DIR: await tempDir() };

    const anonymous = await payout(['batch', 'list'], remote);
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toMatch(/key/i);

    const viewer = await payout(['batch', 'list', '--json'], { ...remote, PAYOUT_CLI_KEY_FILE: await keyFile('vera') });
    expect(viewer.code, viewer.stderr).toBe(0);
    expect(json(viewer).batches[0]).toEqual(expect.objectContaining({ id: batchId, uploadedBy: 'key:olga' }));

    const viewerCancels = await payout(['batch', 'cancel', batchId], { ...remote, PAYOUT_CLI_KEY_FILE: await keyFile('vera') });
    expect(viewerCancels.code).toBe(2);
    expect(viewerCancels.stderr).not.toContain(apiKey('vera'));

    const cancel = await payout(['--key-file', await keyFile('april'), 'batch', 'cancel', batchId, '--json'], remote);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(json(cancel).batch).toEqual(expect.objectContaining({ id: batchId, status: 'CANCELLED' }));
    expect(cancel.stdout + cancel.stderr).not.toContain(apiKey('april'));
  });
  it(
    'runs as an operator, approves as a second key, and meets maker-checker and roles as GraphQL does',
    { timeout: budget(8) },
    async () => {
      const dir = await tempDir();
      const keys = { olga: 'operator', april: 'approver', adam: 'admin', vera: 'viewer' } as const;
      const gateway = GatewayProcess.spawn('gateway', {
        DATA_DIR: dir,
        PORT: '0',
        DATABASE_URL: databaseUrl,
        GATEWAY_API_KEYS: namedApiKeysEnv(keys),
      });
      const url = await gateway.ready;
      const keyFile = async (who: keyof typeof keys) => {
        const file = join(dir, `${who}.key`);
        await writeFile(file, `${apiKey(who)}\n`, { mode: 0o600 });
        return file;
      };
      const remote = { PAYOUT_GATEWAY_URL: url, DATA_DIR: await tempDir() };
      const as = async (who: keyof typeof keys) => ({ ...remote, PAYOUT_CLI_KEY_FILE: await keyFile(who) });
      const payroll = join(dir, 'payroll.csv');
      await writeFile(payroll, 'provider,amount,account\nbank-card-token,10.00,token_success\nbank-card-token,12.50,token_success\n');

      const imported = await payout(['batch', 'run', payroll, '--yes'], await as('olga'));
      expect(imported.code, imported.stderr).toBe(0);
      const batchId = /Batch (b[0-9a-f]+) waits for an approver \(another key\): payout batch approve \1/.exec(imported.stdout)![1]!;

      const byOperator = await payout(['batch', 'approve', batchId, '--yes'], await as('olga'));
      expect(byOperator.code).toBe(2);
      expect(byOperator.stderr).toContain('key:olga has the operator role; this needs approver or admin');

      const approved = await payout(['batch', 'approve', batchId, '--yes', '--json'], await as('april'));
      expect(approved.code, approved.stderr).toBe(0);
      expect(json(approved).batch).toMatchObject({ id: batchId, status: 'COMPLETED', uploadedBy: 'key:olga', approvedBy: 'key:april' });

      const exported = await payout(['batch', 'export', batchId, '--json'], await as('vera'));
      expect(exported.code, exported.stderr).toBe(0);
      expect(json(exported).rows.map((row: { status: string }) => row.status)).toEqual(['COMPLETED', 'COMPLETED']);

      const other = join(dir, 'other.csv');
      await writeFile(other, 'provider,amount,account\nbank-card-token,30.00,token_success\n');
      const own = await payout(['batch', 'run', other, '--yes', '--json'], await as('adam'));
      expect(own.code).toBe(1);
      expect(JSON.parse(own.stderr.trim().split('\n').at(-1)!).error).toMatchObject({ code: 'batch.same-person' });
      const ownId = /payout batch approve (b[0-9a-f]+)/.exec(own.stderr)![1]!;

      const viewerRuns = await payout(['batch', 'run', other, '--yes'], await as('vera'));
      expect(viewerRuns.code).toBe(2);
      const cancel = await payout(['batch', 'cancel', ownId, '--json'], await as('april'));
      expect(cancel.code, cancel.stderr).toBe(0);
      expect(json(cancel).batch).toMatchObject({ id: ownId, status: 'CANCELLED' });
      expect([imported, byOperator, approved, own, cancel].map((r) => r.stdout + r.stderr).join('')).not.toMatch(
        new RegExp(
          Object.keys(keys)
            .map((k) => apiKey(k))
            .join('|'),
        ),
      );
    },
  );
  it(
    'pauses and resumes a RUNNING batch with the keys allowed to, the viewer refused with exit 2 as GraphQL refuses it',
    { timeout: budget(14) },
    async () => {
      const dir = await tempDir();
      const keys = { olga: 'operator', april: 'approver', vera: 'viewer' } as const;
      const gateway = GatewayProcess.spawn('gateway', {
        DATA_DIR: dir,
        PORT: '0',
        DATABASE_URL: databaseUrl,
        GATEWAY_API_KEYS: namedApiKeysEnv(keys),
      });
      const url = await gateway.ready;
      const keyFile = async (who: keyof typeof keys) => {
        const file = join(dir, `${who}.key`);
        await writeFile(file, `${apiKey(who)}\n`, { mode: 0o600 });
        return file;
      };
      const remote = { PAYOUT_GATEWAY_URL: url, DATA_DIR: await tempDir() };
      const as = async (who: keyof typeof keys) => ({ ...remote, PAYOUT_CLI_KEY_FILE: await keyFile(who) });
      // The gateway's own machine: its embedded sandbox, reached through the control file in its DATA_DIR.
      const sandboxEnv = { DATA_DIR: dir };
      const payroll = join(dir, 'payroll.csv');
      await writeFile(payroll, 'provider,amount,account\nbank-card-token,41.00,token_success\nbank-card-token,42.50,token_success\n');

      const imported = await payout(['batch', 'run', payroll, '--yes', '--json'], await as('olga'));
      expect(imported.code, imported.stderr).toBe(0);
      const batchId: string = json(imported).batch.id;
      await partnerDown(sandboxEnv);
      // --ignore-balance: the failing reads may open the partner breaker, and then the balance cannot be read.
      const approve = started(['batch', 'approve', batchId, '--yes', '--ignore-balance', '--json'], await as('april'));
      expect(await followedBatch(approve)).toBe(batchId);
      expect((await batchNow(url, batchId, apiKey('vera'))).status).toBe('RUNNING');

      const viewerPauses = await payout(['batch', 'pause', batchId, '--json'], await as('vera'));
      expect(viewerPauses.code).toBe(2);
      expect(lastError(viewerPauses)).toMatchObject({ code: 'auth.forbidden', exitCode: 2 });
      expect((await batchNow(url, batchId, apiKey('vera'))).status).toBe('RUNNING');

      const pause = await payout(['batch', 'pause', batchId, '--json'], await as('olga'));
      expect(pause.code, pause.stderr).toBe(0);
      expect(json(pause).batch).toMatchObject({ id: batchId, status: 'PAUSED', waiting: { reason: 'PERSON', by: 'key:olga' } });
      const followed = await approve.done;
      expect(followed.code, followed.stderr).toBe(5);
      expect(json(followed)).toMatchObject({
        stopped: { action: 'paused', by: 'key:olga' },
        batch: { id: batchId, status: 'PAUSED', approvedBy: 'key:april' },
      });

      const viewerResumes = await payout(['batch', 'resume', batchId, '--json'], await as('vera'));
      expect(viewerResumes.code).toBe(2);
      expect(lastError(viewerResumes)).toMatchObject({ code: 'auth.forbidden', exitCode: 2 });
      expect((await batchNow(url, batchId, apiKey('vera'))).status).toBe('PAUSED');

      const resume = started(['batch', 'resume', batchId, '--json'], await as('april'));
      await eventually(async () => expect((await batchNow(url, batchId, apiKey('vera'))).status).toBe('RUNNING'), CONDITION_MS);
      await partnerBack(sandboxEnv);
      const resumed = await resume.done;
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(json(resumed)).toMatchObject({
        resumed: true,
        batch: { id: batchId, status: 'COMPLETED', counts: [{ status: 'COMPLETED', count: 2 }] },
      });
      await expectEachRowPaidOnce(batchId, await as('vera'), sandboxEnv, 2);
      const all = [imported, viewerPauses, pause, viewerResumes, resumed].map((r) => r.stdout + r.stderr).join('');
      expect(all).not.toMatch(
        new RegExp(
          Object.keys(keys)
            .map((k) => apiKey(k))
            .join('|'),
        ),
      );
    },
  );
});

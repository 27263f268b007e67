import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { budget, startPayout, type PayoutResult } from '../support/cli-process.ts';
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
const payout = (args: string[], env: Record<string, string>): Promise<PayoutResult> => startPayout(args, { ...env, LANG: 'en_US.UTF-8', TZ: 'UTC' }).done;
const json = (result: PayoutResult) => JSON.parse(result.stdout) as Record<string, any>;

/** A payroll file uploaded through the gateway's GraphQL (importBatch), as the page uploads it. */
async function upload(url: string, key?: string): Promise<string> {
  const form = new FormData();
  form.set('operations', JSON.stringify({ query: 'mutation($file: File!) { importBatch(file: $file) { ... on ImportBatchSuccess { batch { id } } ... on BatchError { code message } } }', variables: { file: null } }));
  form.set('map', JSON.stringify({ 0: ['variables.file'] }));
  form.set('0', new Blob([await readFile(sample)]), 'payroll-valid.csv');
  const response = await fetch(`${url}/graphql`, { method: 'POST', body: form, headers: { 'x-graphql-yoga-csrf': '1', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) } });
  const body = (await response.json()) as { data: { importBatch: { batch?: { id: string }; message?: string } } };
  const id = body.data.importBatch.batch?.id;
  if (id === undefined) throw new Error(`import refused: ${JSON.stringify(body)}`);
  return id;
}

describe('beside npm start (embedded database, no keys)', () => {
  it('lists, shows, refuses, and discards through the running gateway, which holds the database', { timeout: budget(6) }, async () => {
    const dataDir = await tempDir();
    const port = await freePort();
    const gateway = GatewayProcess.spawn('npm start', { DATA_DIR: dataDir, PORT: String(port) });
    const url = await gateway.ready;
    const batchId = await upload(url);
    const env = { DATA_DIR: dataDir, PORT: String(port) };

    const list = await payout(['batch', 'list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(json(list).batches).toEqual([expect.objectContaining({ id: batchId, status: 'VALIDATED', validCount: 10, totalAmount: '50950.60', currency: 'RUB' })]);
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
    expect(JSON.parse(pause.stderr.trim().split('\n').at(-1)!)).toEqual({ error: expect.objectContaining({ code: 'batch.not-pausable', exitCode: 1 }) });

    const discard = await payout(['batch', 'discard', batchId], env);
    expect(discard.code, discard.stderr).toBe(0);
    expect(discard.stdout).toContain('Discarded: nothing of it was sent.');
    const cancelled = json(await payout(['batch', 'list', '--status', 'CANCELLED', '--json'], env));
    expect(cancelled.batches.map((b: { id: string }) => b.id)).toEqual([batchId]);
    expect(gateway.alive).toBe(true);
  });

  it('runs, shows, exports and finds payments through the running gateway: the export is the same bytes as the page', { timeout: budget(8) }, async () => {
    const dataDir = await tempDir();
    const port = await freePort();
    const gateway = GatewayProcess.spawn('npm start', { DATA_DIR: dataDir, PORT: String(port) });
    const url = await gateway.ready;
    const env = { DATA_DIR: dataDir, PORT: String(port) };

    // The gateway's own workers pay; the CLI follows the batch through the API.
    const run = await payout(['batch', 'run', sample, '--yes', '--json'], env);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).not.toMatch(/opens .*database/);
    const ran = json(run);
    expect(ran).toMatchObject({ outcome: 'paid', batch: { status: 'COMPLETED_WITH_FAILURES', counts: [{ status: 'COMPLETED', count: 7 }, { status: 'FAILED', count: 3 }] } });
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
  });

  it('serves the API itself, saying so, when no gateway answers', { timeout: budget(2) }, async () => {
    const env = { DATA_DIR: await tempDir(), PORT: String(await freePort()) };
    const list = await payout(['batch', 'list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(json(list)).toEqual({ batches: [], more: false });
    expect(list.stderr).toContain(`{"notice":"No gateway answers at http://127.0.0.1:${env.PORT}; this command opens the embedded database in ${env.DATA_DIR} itself."}`);
  });

  it('fails with exit 3, naming the address, when PAYOUT_GATEWAY_URL does not answer', { timeout: budget(1) }, async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const list = await payout(['batch', 'list'], { DATA_DIR: await tempDir(), PAYOUT_GATEWAY_URL: url });
    expect(list.code).toBe(3);
    expect(list.stderr).toContain(`no gateway answers at ${url} (ECONNREFUSED): start it, or unset PAYOUT_GATEWAY_URL`);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('against a remote gateway on PostgreSQL with keys', () => {
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `payout_cli_gw_${randomBytes(5).toString('hex')}`;
  const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  beforeAll(async () => admin(`CREATE DATABASE "${name}"`));
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
  it('runs as an operator, approves as a second key, and meets maker-checker and roles as GraphQL does', { timeout: budget(8) }, async () => {
    const dir = await tempDir();
    const keys = { olga: 'operator', april: 'approver', adam: 'admin', vera: 'viewer' } as const;
    const gateway = GatewayProcess.spawn('gateway', { DATA_DIR: dir, PORT: '0', DATABASE_URL: databaseUrl, GATEWAY_API_KEYS: namedApiKeysEnv(keys) });
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
    expect([imported, byOperator, approved, own, cancel].map((r) => r.stdout + r.stderr).join('')).not.toMatch(new RegExp(Object.keys(keys).map((k) => apiKey(k)).join('|')));
  });
});

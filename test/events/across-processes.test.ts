import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { uploadBatch } from '../support/batch-graphql.ts';
import { freePort, GatewayProcess, killAllGateways } from '../support/gateway-process.ts';
import { killAllWorkers, remoteEnv, spawnWorker, type WorkerProcess } from '../support/processes.ts';
import { startSandbox, type TestSandbox } from '../support/sandbox.ts';
import { heldAnswers, queueFault, releaseHeld } from '../support/fault-sandbox.ts';
import { subscribeSse } from '../support/sse.ts';
import { apiKey, apiKeysEnv } from '../support/keys.ts';

/**
 * Issue 8, "live progress stops across processes": two gateway processes and one worker
 * process (`npm run worker`, gateways with WORKER_IN_PROCESS=false) on one PostgreSQL
 * database. Subscriptions are followed on gateway A while everything that changes the
 * state happens elsewhere: uploads, approvals, mutations and webhooks on gateway B, rows
 * paid by the worker. Assertions are on the events received, never on timing; the waits'
 * limits only bound a broken run.
 */
const postgres = testDatabaseKinds().find((kind) => kind.name === 'postgresql');
const KEYS = apiKeysEnv({ op: 'operator', ap: 'approver', v: 'viewer', ad: 'admin' });
const ROWS = 200;
/** Bounds a broken run only. */
const LIMIT_MS = 120_000;
/** Log lines searched for the listener's warning. */
const TAIL = 2_000;

describe.skipIf(postgres === undefined)('events across gateway and worker processes on PostgreSQL', () => {
  let sb: TestSandbox;
  let database: TestDatabase;
  let gatewayA: string;
  let gatewayB: string;
  let worker: WorkerProcess;
  const processes: GatewayProcess[] = [];

  beforeAll(async () => {
    sb = await startSandbox({ balance: '999999999.00', inProgressMs: 300 });
    database = await postgres!.create();
    // Migrated once here: two gateways starting together would both try.
    await database.db.migrate();
    const databaseUrl = (database.target as { databaseUrl: string }).databaseUrl;
    const shared = {
      ...remoteEnv(databaseUrl, sb.url),
      GATEWAY_API_KEYS: KEYS,
      GATEWAY_WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKER_IN_PROCESS: 'false',
      // No process learns statuses by reading back: only webhooks (to B) and the worker move them.
      READ_BACK_INTERVAL_MS: '600000',
      LOG_LEVEL: 'info',
    };
    const [portA, portB] = [await freePort(), await freePort()];
    const a = GatewayProcess.spawn('gateway A', {
      ...shared,
      HOST: '127.0.0.1',
      PORT: String(portA),
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${portA}`,
    });
    const b = GatewayProcess.spawn('gateway B', {
      ...shared,
      HOST: '127.0.0.1',
      PORT: String(portB),
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${portB}`,
    });
    processes.push(a, b);
    [gatewayA, gatewayB] = await Promise.all([a.ready, b.ready]);
    // The worker's payments send their webhooks to gateway B too.
    worker = spawnWorker('worker', {
      ...shared,
      GATEWAY_PUBLIC_URL: gatewayB,
      WORKER_CONCURRENCY: '8',
      // A held answer must not time out: the test releases it.
      PAYOUT_HEADERS_TIMEOUT_MS: '300000',
      PAYOUT_BODY_TIMEOUT_MS: '300000',
    });
  }, 120_000);

  afterAll(async () => {
    await releaseHeld(sb).catch(() => {});
    await killAllWorkers();
    await killAllGateways();
    await sb?.close();
    await database?.drop();
  });

  let seenSoFar: () => string = () => '';
  const diagnose = () =>
    [
      `events: ${seenSoFar()}`,
      ...processes.map((p) => `${p.name}:\n${p.logTail(15)}`),
      `worker (${worker.describe()}):\n${worker.logTail(15)}`,
    ].join('\n---\n');

  async function gql(gateway: string, key: string, query: string) {
    const response = await request(`${gateway}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey(key)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const body = (await response.body.json()) as { data?: any; errors?: unknown };
    if (body.errors !== undefined) throw new Error(`${query}: ${JSON.stringify(body.errors)}`);
    return body.data;
  }

  async function upload(gateway: string, csv: string) {
    return (await uploadBatch(gateway, csv, { key: apiKey('op'), variables: { force: true }, fields: 'id status' })) as {
      id: string;
      status: string;
    };
  }

  async function waitFor(what: string, check: () => Promise<boolean> | boolean, stop?: () => string | undefined): Promise<void> {
    const deadline = Date.now() + LIMIT_MS;
    for (;;) {
      if (await check()) return;
      const stopped = stop?.();
      if (stopped !== undefined || Date.now() > deadline) {
        const rows = await database.db.prisma.batchItem.groupBy({ by: ['batchId', 'status'], _count: { _all: true } });
        const batches = await database.db.prisma.batch.findMany({ select: { id: true, status: true } });
        const state = `batches: ${JSON.stringify(batches)}\nrows: ${JSON.stringify(rows.map((r) => [r.batchId, r.status, r._count._all]))}`;
        throw new Error(`waiting for ${what}: ${stopped ?? 'gave up'}\n${state}\n${diagnose()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Resolves true once the stream has ended on its own (the server completed the subscription). */
  function endedFlag(done: Promise<void>) {
    const state = { ended: false };
    // A stream cut (a gateway killed in afterAll) is not an end the server chose.
    void done.then(
      () => (state.ended = true),
      () => {},
    );
    return state;
  }

  it('batchProgress on gateway A follows a batch uploaded and approved on B and paid by a worker process, to its final state, then ends', async () => {
    const lines = ['reference,provider,amount,account'];
    for (let i = 0; i < ROWS; i++) lines.push(`X-${i + 1},bank-card-token,${100 + i}.${String(i % 100).padStart(2, '0')},token_success`);
    const batch = await upload(gatewayB, `${lines.join('\n')}\n`);
    expect(batch.status).toBe('VALIDATED');

    type Snapshot = { status: string; completed: number };
    const sse = await subscribeSse(
      `${gatewayA}/graphql`,
      { authorization: `Bearer ${apiKey('v')}` },
      `subscription { batchProgress(id: "${batch.id}") { status counts { status count } } }`,
      (data) =>
        JSON.stringify({
          status: data.batchProgress.status,
          completed: data.batchProgress.counts.find((c: any) => c.status === 'COMPLETED')?.count ?? 0,
        } satisfies Snapshot),
      () => false,
    );
    expect(sse.statusCode).toBe(200);
    const ended = endedFlag(sse.done);
    const snapshots = () => sse.values.map((value) => JSON.parse(value) as Snapshot);
    seenSoFar = () => sse.values.join(' ');
    await sse.first;

    // One execute answer is held: the batch cannot finish until the test lets it, so the
    // events seen meanwhile are progress made by the worker process, not a final burst.
    await queueFault(sb, { operation: 'execute', kind: 'hold-after', times: 1 });
    await gql(gatewayB, 'ap', `mutation { approveBatch(id: "${batch.id}") { __typename } }`);
    await waitFor(
      'gateway A to show rows paid by the worker while one answer is held',
      async () => (await heldAnswers(sb)).length > 0 && snapshots().some((s) => s.status === 'RUNNING' && s.completed > 0),
      () => (ended.ended ? `the stream ended early: ${sse.values.join(' ')}` : worker.alive ? undefined : 'the worker exited'),
    );
    expect(ended.ended).toBe(false);
    await releaseHeld(sb);
    await waitFor(
      'the stream to end after the final state',
      () => ended.ended,
      () => (worker.alive ? undefined : 'the worker exited'),
    );

    const seen = snapshots();
    expect(seen[0]).toEqual({ status: 'VALIDATED', completed: 0 });
    const running = seen.filter((s) => s.status === 'RUNNING');
    expect(
      running.some((s) => s.completed > 0 && s.completed < ROWS),
      JSON.stringify(seen),
    ).toBe(true);
    // Counts only move forward, and the last event is the final state.
    const counts = seen.map((s) => s.completed);
    expect([...counts].sort((x, y) => x - y)).toEqual(counts);
    expect(seen.at(-1)).toEqual({ status: 'COMPLETED', completed: ROWS });
    expect(seen.filter((s) => s.status === 'COMPLETED')).toHaveLength(1);
  }, 300_000);

  it('batchProgress on gateway A survives its listener connection being cut mid-run, and still ends with the final state', async () => {
    const rows = 50;
    const lines = ['reference,provider,amount,account'];
    for (let i = 0; i < rows; i++) lines.push(`C-${i + 1},bank-card-token,${300 + i}.${String(i % 100).padStart(2, '0')},token_success`);
    const batch = await upload(gatewayB, `${lines.join('\n')}\n`);
    const sse = await subscribeSse(
      `${gatewayA}/graphql`,
      { authorization: `Bearer ${apiKey('v')}` },
      `subscription { batchProgress(id: "${batch.id}") { status counts { status count } } }`,
      (data) => `${data.batchProgress.status}:${data.batchProgress.counts.find((c: any) => c.status === 'COMPLETED')?.count ?? 0}`,
      () => false,
    );
    seenSoFar = () => sse.values.join(' ');
    const ended = endedFlag(sse.done);
    await sse.first;
    await queueFault(sb, { operation: 'execute', kind: 'hold-after', times: 1 });
    await gql(gatewayB, 'ap', `mutation { approveBatch(id: "${batch.id}") { __typename } }`);
    await waitFor(
      'progress on A while one answer is held',
      async () => (await heldAnswers(sb)).length > 0 && sse.values.some((v) => v.startsWith('RUNNING:') && v !== 'RUNNING:0'),
    );

    // The server ends every events listener: gateway A's, and those every process keeps for the partner breaker's notices.
    const admin = new pg.Client({ connectionString: (database.target as { databaseUrl: string }).databaseUrl });
    await admin.connect();
    try {
      const cut = await admin.query(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'payout-gateway events'`,
      );
      expect(cut.rows.length).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.end();
    }
    await releaseHeld(sb);
    await waitFor('the stream to end after the final state', () => ended.ended);
    expect(sse.values.at(-1)).toBe(`COMPLETED:${rows}`);
    expect(processes.map((p) => p.alive)).toEqual([true, true]);
    expect(processes[0]!.logTail(TAIL)).toContain('event listener connection lost');
  }, 300_000);

  it('paymentUpdated on gateway A follows a payment executed on B whose webhooks B applies, and ends at COMPLETED', async () => {
    const paymentId = `xproc-${Date.now()}`;
    const created = await gql(
      gatewayB,
      'ad',
      `mutation { createPayment(input: { paymentId: "${paymentId}", amount: "100.00", recipient: { sbpB2c: { account: "79001234567", bankId: "sbp_bank_id_execute_in_progress" } } }) { __typename } }`,
    );
    expect(created.createPayment.__typename).toBe('CreatePaymentSuccess');

    const sse = await subscribeSse(
      `${gatewayA}/graphql`,
      { authorization: `Bearer ${apiKey('v')}` },
      `subscription { paymentUpdated(paymentId: "${paymentId}") { paymentId trackingStatus } }`,
      (data) => data.paymentUpdated.trackingStatus,
      () => false,
    );
    expect(sse.statusCode).toBe(200);
    seenSoFar = () => sse.values.join(' ');
    const ended = endedFlag(sse.done);
    await sse.first;
    // A key other than the creator's executes it (the second person, PAYMENT_SECOND_PERSON_ABOVE).
    await gql(gatewayB, 'op', `mutation { executePayment(paymentId: "${paymentId}") { __typename } }`);
    await waitFor('the paymentUpdated stream on A to end', () => ended.ended);

    expect(sse.values[0]).toBe('READY');
    expect(sse.values.at(-1)).toBe('COMPLETED');
    expect(sse.values.filter((v) => v === 'COMPLETED')).toHaveLength(1);
    // Applied by B from the webhook (A reads nothing back: its read-back is idle).
    const history = await database.db.prisma.paymentStatusEvent.findMany({ where: { paymentId, status: 'COMPLETED' } });
    expect(history.map((h) => h.source)).toEqual(['webhook']);

    // Subscribing once the payment is final: that state, then the end.
    const late = await subscribeSse(
      `${gatewayA}/graphql`,
      { authorization: `Bearer ${apiKey('v')}` },
      `subscription { paymentUpdated(paymentId: "${paymentId}") { trackingStatus } }`,
      (data) => data.paymentUpdated.trackingStatus,
      () => false,
    );
    const lateEnded = endedFlag(late.done);
    await waitFor('a subscription to a final payment to end', () => lateEnded.ended);
    expect(late.values).toEqual(['COMPLETED']);
  }, 300_000);
});

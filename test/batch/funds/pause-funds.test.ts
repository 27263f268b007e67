import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchStateError } from '../../../src/batch/lifecycle/batch-service.ts';
import { FundsCheck } from '../../../src/batch/funds/funds-check.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { GatewayMetrics } from '../../../src/observability/metrics.ts';
import { claimItems } from '../../../src/batch/rows/sql/claim-items.ts';
import { finishBatches } from '../../../src/batch/lifecycle/sql/finish-batches.ts';
import type { BatchWorker } from '../../../src/batch/pay/batch-worker.ts';
import { testWorker, textSource, tokenPayroll } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { eventually } from '../../support/eventually.ts';
import { setSandboxBalance, startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { subscribeSse } from '../../support/sse.ts';

/**
 * Issue 19, items 3 and 4: approval weighs the balance against every approved batch; a run
 * that meets INSUFFICIENT_FUNDS pauses, its unfunded rows wait under new paymentIds, and it
 * resumes by itself after a top-up; a person pauses and resumes by hand.
 */
describe.each(testDatabaseKinds())('pausing batches on $name', (kind) => {
  let gw: TestGateway;
  const running: BatchWorker[] = [];
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, sandbox: { inProgressMs: 50 }, database: kind });
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((w) => w.stop()));
    await setBalance({ set: '10000000.00' });
  });
  afterAll(() => gw.close());

  const db = () => gw.db.prisma;
  const services = () => gw.services();
  const setBalance = (body: { set?: string; add?: string }) => setSandboxBalance(gw, body);
  const worker = () => {
    const w = testWorker(gw, { retryBaseMs: 5 }, undefined, {
      funds: new FundsCheck({ query: gw.db.query, client: services().client }, { tariffs: {}, defaultPercent: '2' }),
    });
    running.push(w);
    return w;
  };
  let serial = 0;
  /** `rows` rows of 100.xx RUB each, imported (not approved). */
  async function imported(rows: number) {
    return services().importer.import({ source: textSource(tokenPayroll(++serial, rows)) });
  }
  const status = async (id: string) => (await db().batch.findUniqueOrThrow({ where: { id } })).status;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as BatchStateError,
    );

  it('a running batch whose last rows failed for lack of funds pauses for funds; a finish between the two writes does not end it (the race behind a flaky events test)', async () => {
    const batch = await imported(2);
    await services().batches.approve(batch.id, { approver: 'anonymous' });
    // As a worker's write leaves them, before its funds pause: every row at rest, one failed for funds (it keeps its card data).
    const [first, second] = await db().batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    await db().batchItem.update({ where: { id: first!.id }, data: { status: 'COMPLETED', finishedAt: new Date() } });
    await db().batchItem.update({
      where: { id: second!.id },
      data: { status: 'FAILED', errorCode: 'INSUFFICIENT_FUNDS', errorMessage: 'no money', finishedAt: new Date() },
    });
    expect(await finishBatches(gw.db.query, [batch.id])).toEqual([]);
    expect(await status(batch.id)).toBe('RUNNING');
    // Should the worker that wrote it die before its pause, any worker's sweep pauses it.
    await worker().drain(async () => (await status(batch.id)) !== 'RUNNING', batch.id);
    expect(await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).toMatchObject({ status: 'PAUSED', pauseReason: 'FUNDS' });
    expect(await db().batchItem.findUniqueOrThrow({ where: { id: second!.id } })).toMatchObject({ status: 'PENDING', attempt: 2 });
  });

  it('a person pauses a running batch: nothing is claimed, the page and GraphQL say who; resumed, it pays every row once', async () => {
    const batch = await imported(3);
    await services().batches.approve(batch.id, { approver: 'anonymous' });
    const paused = await services().batches.pause(batch.id, { actor: 'key:ops', role: 'operator', requestId: null });
    expect(paused).toMatchObject({ status: 'PAUSED', pauseReason: 'PERSON', pausedBy: 'key:ops' });
    const claimed = await claimItems(gw.db.query, {
      owner: 'probe',
      token: crypto.randomUUID(),
      leaseMs: 1_000,
      inFlight: [],
      batchId: batch.id,
      limit: 10,
    });
    expect(claimed).toEqual([]);
    const reply = await gw.gql(`{ batch(id: "${batch.id}") { status secondsLeft waiting { reason by waitingFor } } }`);
    expect(reply.body.data?.batch, JSON.stringify(reply.body.errors)).toMatchObject({
      status: 'PAUSED',
      secondsLeft: null,
      waiting: { reason: 'PERSON', by: 'key:ops', waitingFor: 'a person to resume it' },
    });
    expect(await refusal(services().batches.pause(batch.id))).toMatchObject({ code: 'batch.not-pausable' });
    // What an operator's alert reads.
    const metrics = await new GatewayMetrics({
      prisma: db(),
      logger: createLogger({ level: 'silent' }),
      countCacheMs: 0,
    }).registry.metrics();
    expect(metrics).toContain('payout_batches_waiting{reason="PERSON"} 1');

    await services().batches.resume(batch.id, { actor: 'key:ops', role: 'operator', requestId: null });
    await worker().drain(async () => (await status(batch.id)) !== 'RUNNING');
    expect(await status(batch.id)).toBe('COMPLETED');
    const actions = (await db().auditEvent.findMany({ where: { batchId: batch.id }, orderBy: { id: 'asc' } })).map((e) => e.action);
    expect(actions).toEqual(['batch.approve', 'batch.pause', 'batch.resume']);
    for (const row of await db().batchItem.findMany({ where: { batchId: batch.id } })) {
      expect(await gw.sb.effects(row.paymentId)).toMatchObject({ creates: 1, executions: 1 });
    }
  });

  it('approval refuses a batch the balance does not cover, with the shortfall; ignoreBalance starts it anyway', async () => {
    const batch = await imported(3);
    await setBalance({ set: '200.00' });
    const error = await refusal(services().batches.approve(batch.id, { approver: 'anonymous' }));
    expect(error).toMatchObject({ code: 'batch.insufficient-funds' });
    // 3 rows of about 101 RUB and their commission, against 200.00.
    expect(error?.message).toMatch(/^\d+\.\d\d RUB short: .* 200\.00 RUB is available/);
    expect(await status(batch.id)).toBe('VALIDATED');
    const started = await services().batches.approve(batch.id, { approver: 'anonymous', ignoreBalance: true });
    expect(started.status).toBe('RUNNING');
    await services().batches.cancel(batch.id);
  });

  it('runs out of money half-way: pauses with the shortfall, the unfunded rows wait under new paymentIds, a top-up resumes it by itself', async () => {
    const batch = await imported(6);
    // What an open batch page is told (batchProgress): it must learn the shortfall once read,
    // not keep the pause's first "— short" until the page is loaded again.
    const sse = await subscribeSse(
      `${gw.gateway.url}/graphql`,
      {},
      `subscription { batchProgress(id: "${batch.id}") { status waiting { reason shortfall { value } } } }`,
      (data) =>
        `${data.batchProgress.status} ${data.batchProgress.waiting?.reason ?? '-'} ${data.batchProgress.waiting?.shortfall?.value ?? '-'}`,
      (values) => values.some((v) => /^PAUSED FUNDS \d/.test(v)),
    );
    await sse.first;
    // Enough for about two rows and their commission.
    await setBalance({ set: '250.00' });
    await services().batches.approve(batch.id, { approver: 'anonymous', ignoreBalance: true });
    const w = worker();
    w.start();
    await eventually(async () => expect(await status(batch.id)).toBe('PAUSED'), 30_000);
    const paused = await db().batch.findUniqueOrThrow({ where: { id: batch.id } });
    expect(paused).toMatchObject({ pauseReason: 'FUNDS' });
    await eventually(async () => {
      const reply = await gw.gql(`{ batch(id: "${batch.id}") { waiting { reason shortfall { value } } } }`);
      expect(reply.body.data?.batch.waiting, JSON.stringify(reply.body.errors)).toMatchObject({
        reason: 'FUNDS',
        shortfall: { value: expect.stringMatching(/^[1-9]\d*\.\d\d$/) },
      });
    }, 30_000);
    await eventually(() => expect(sse.values.at(-1)).toMatch(/^PAUSED FUNDS [1-9]\d*\.\d\d$/), 30_000);
    await sse.done;
    const rows = await db().batchItem.findMany({ where: { batchId: batch.id } });
    expect(rows.filter((r) => r.status === 'FAILED' || r.status === 'NEEDS_REVIEW')).toEqual([]);
    const waiting = rows.filter((r) => r.status === 'PENDING');
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((r) => r.attempt >= 2 || r.paymentId === `${batch.id}-${r.line}`)).toBe(true);

    await setBalance({ add: '1000.00' });
    await eventually(async () => expect(await status(batch.id)).toBe('COMPLETED'), 60_000);
    const done = await db().batchItem.findMany({ where: { batchId: batch.id } });
    expect(done.every((r) => r.status === 'COMPLETED')).toBe(true);
    // Each line paid once, whatever its attempts (an execute refused for funds moved nothing).
    const payments = await gw.sb.allEffects();
    for (const row of done) {
      const executed = payments.filter((p) => p.paymentId.startsWith(`${batch.id}-${row.line}`) && p.status === 'COMPLETED');
      expect(executed.length, `line ${row.line}`).toBe(1);
    }
  });
});

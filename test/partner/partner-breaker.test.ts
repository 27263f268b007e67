import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchWorker } from '../../src/batch/pay/batch-worker.ts';
import { createLogger } from '../../src/log/logger.ts';
import { GatewayMetrics } from '../../src/observability/metrics.ts';
import { BreakerState } from '../../src/db/generated/enums.ts';
import { breakerStates, breakerTransitions, probeTrouble, troubleOf } from '../../src/partner/breaker-states.ts';
import { PartnerBreaker } from '../../src/partner/partner-breaker.ts';
import { PaymentAttempts } from '../../src/payments/attempt.ts';
import type { CallOutcome, ObservedCall } from '../../src/payout/call-hooks.ts';
import { PayoutApiError, PayoutNetworkError, PayoutResponseError } from '../../src/payout/errors.ts';
import { testWorker, textSource } from '../support/batch.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * Issue 19, "partner health for the whole deployment": trouble across many rows opens one
 * breaker in the database; while it is open the partner gets nothing but probes, no row is
 * claimed or spends its retries, and the work goes on by itself once a probe is answered.
 */
describe.each(testDatabaseKinds())('the partner breaker on $name', (kind) => {
  let gw: TestGateway;
  const running: Array<{ stop(): unknown }> = [];
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, sandbox: { inProgressMs: 50 }, database: kind });
  });
  afterEach(async () => {
    for (const part of running.splice(0)) await part.stop();
    await gw.sb.setRates({});
    await gw.db.query('DELETE FROM "PartnerBreaker"', []);
  });
  afterAll(() => gw.close());

  const db = () => gw.db.prisma;
  let amount = 900;
  async function runningBatch(rows: number) {
    const lines = Array.from({ length: rows }, () => `bank-card-token,${amount++}.00,token_success`).join('\n');
    const batch = await gw.services().importer.import({ source: textSource(`provider,amount,account\n${lines}\n`) });
    await gw.services().batches.approve(batch.id, { approver: 'anonymous' });
    return batch;
  }

  /** A worker and a breaker on their own client, every call of which is kept. */
  function guardedWorker(concurrency: number): { worker: BatchWorker; breaker: PartnerBreaker; calls: ObservedCall[] } {
    const client = gw.sb.client({ maxRetries: 1 });
    const breaker = new PartnerBreaker(
      { query: gw.db.query, client, logger: createLogger({ level: 'silent' }) },
      { troubleCalls: 4, troublePaths: 2, probeBaseMs: 20, probeMaxMs: 200, refreshMs: 20 },
    );
    const calls: ObservedCall[] = [];
    // Every call that was sent, probes included (refused ones are never sent, so never seen).
    client.observe({ onCall: (call) => calls.push(call) });
    breaker.attach();
    const attempts = new PaymentAttempts(client, { backoff: { baseMs: 5, maxMs: 20 } });
    const worker = testWorker(gw, { concurrency, perBatchConcurrency: concurrency, retryBaseMs: 5, maxRetries: 2 }, undefined, {
      client,
      attempts,
      breaker,
    });
    running.push(worker, breaker);
    return { worker, breaker, calls };
  }

  it('opens on 5xx across rows, lets only probes through, and pays everything once the partner answers', async () => {
    const batch = await runningBatch(24);
    await gw.sb.setRates({ failBeforeRate: 1 });
    const { worker, breaker, calls } = guardedWorker(4);
    worker.start();
    await eventually(async () => {
      const [row] = await gw.db.query<{ state: string; reason: string }>('SELECT state, reason FROM "PartnerBreaker"', []);
      expect(row).toMatchObject({ state: 'OPEN', reason: 'FAILING' });
    }, 60_000);
    const openedAt = calls.length;
    // Several probes, one after another, and nothing else but the calls that were in flight.
    await eventually(() => expect(calls.slice(openedAt).filter((c) => c.path === '/balance').length).toBeGreaterThanOrEqual(4), 60_000);
    const afterOpen = calls.slice(openedAt).filter((c) => c.path !== '/balance');
    expect(afterOpen.length).toBeLessThanOrEqual(4);
    const stuck = await db().batchItem.count({ where: { batchId: batch.id, status: { in: ['FAILED', 'NEEDS_REVIEW'] } } });
    expect(stuck).toBe(0);
    expect(breaker.isOpen).toBe(true);
    // What an operator's alert reads: the same state, from any process's /metrics.
    const metrics = new GatewayMetrics({ prisma: db(), logger: createLogger({ level: 'silent' }), countCacheMs: 0 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('payout_partner_breaker_open{reason="FAILING"} 1');
    expect(text).toContain('payout_partner_breaker_open{reason="UNREACHABLE"} 0');

    await gw.sb.setRates({});
    await eventually(
      async () => expect((await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).status).toBe('COMPLETED'),
      60_000,
    );
    expect(breaker.isOpen).toBe(false);
    for (const row of await db().batchItem.findMany({ where: { batchId: batch.id } })) {
      expect(await gw.sb.effects(row.paymentId)).toMatchObject({ creates: 1, executions: 1 });
      expect(row.retries).toBeLessThanOrEqual(1);
    }
  });

  it('one payment failing again and again does not open it', async () => {
    const batch = await runningBatch(1);
    await gw.sb.addFault({ operation: 'create', kind: 'fail-before', times: 1_000 });
    const { worker, breaker } = guardedWorker(1);
    await worker.drain(async () => (await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).status !== 'RUNNING');
    await gw.sb.raw('DELETE', '/_sandbox/faults');
    expect(breaker.isOpen).toBe(false);
    expect(await db().batchItem.findFirstOrThrow({ where: { batchId: batch.id } })).toMatchObject({ status: 'FAILED', retries: 2 });
  });
  /**
   * Issue 29, finding 2: a partner throttling creates and executes still serves reads (a
   * row's read-back, the balance). Those answers end the reads' run of trouble, not the
   * sends': the breaker opens all the same.
   */
  it('opens on throttled sends though reads between them are served', async () => {
    const breaker = new PartnerBreaker(
      { query: gw.db.query, client: gw.sb.client(), logger: createLogger({ level: 'silent' }) },
      { troubleCalls: 4, troublePaths: 2, probeBaseMs: 60_000, probeMaxMs: 60_000, refreshMs: 0 },
    );
    running.push(breaker);
    for (let i = 0; i < 4; i++) {
      breaker.onCall({
        method: i % 2 === 0 ? 'PUT' : 'POST',
        path: i % 2 === 0 ? `/payments/t-${i}` : `/payments/t-${i}/execute`,
        outcome: 'throttled',
        seconds: 0.01,
        code: 'payout.too-many-requests',
        retryAfterMs: 1_000,
      });
      breaker.onCall({ method: 'GET', path: `/payments/t-${i}`, outcome: 'ok', seconds: 0.01 });
      breaker.onCall({ method: 'GET', path: '/balance', outcome: 'ok', seconds: 0.01 });
    }
    expect(breaker.isOpen).toBe(true);
    await eventually(async () =>
      expect(await db().partnerBreaker.findFirst({ where: { state: 'OPEN' } })).toMatchObject({ reason: 'THROTTLED' }),
    );
  });
  /**
   * A read of the shared row that set out before the breaker opened answers "closed" after
   * it opened (in this process, or in another one told by the notice): it must not undo the
   * open, or the process sends again at full speed until its next read (the hang scenario's
   * payment calls while open, issue 19).
   */
  describe('a read that set out before the open', () => {
    function heldReads(): { query: typeof gw.db.query; holdNext(): void; release(): void; held(): boolean; answered(): number } {
      let holding = false;
      let answered = 0;
      const waiting: Array<() => void> = [];
      const query: typeof gw.db.query = async (sql, params) => {
        const hold = holding && sql.trimStart().startsWith('SELECT state');
        if (hold) holding = false;
        const rows = await gw.db.query(sql, params);
        if (hold) await new Promise<void>((resolve) => waiting.push(resolve));
        else if (sql.trimStart().startsWith('SELECT state')) answered++;
        return rows as never;
      };
      return {
        query,
        holdNext: () => (holding = true),
        release: () => {
          for (const resolve of waiting.splice(0)) resolve();
        },
        held: () => waiting.length > 0,
        answered: () => answered,
      };
    }
    const trouble = (i: number): ObservedCall => ({
      method: 'PUT',
      path: `/payments/p-${i}`,
      outcome: 'timeout',
      seconds: 2,
      code: 'network.timeout',
    });
    const options = { troubleCalls: 4, troublePaths: 2, probeBaseMs: 60_000, probeMaxMs: 60_000, refreshMs: 0 };

    it('does not close it again in the process that opened it', async () => {
      const reads = heldReads();
      const breaker = new PartnerBreaker(
        { query: reads.query, client: gw.sb.client(), logger: createLogger({ level: 'silent' }) },
        options,
      );
      running.push(breaker);
      reads.holdNext();
      const stale = breaker.refresh(true);
      await eventually(() => expect(reads.held()).toBe(true));
      for (let i = 0; i < 4; i++) breaker.onCall(trouble(i));
      await eventually(async () => expect((await readState()).state).toBe('OPEN'));
      reads.release();
      await stale;
      expect(breaker.isOpen).toBe(true);
      expect(breaker.refusal()).toBeDefined();
    });

    it('does not close it again in a process told of the open by the notice', async () => {
      const reads = heldReads();
      const events = new EventTarget();
      const opener = new PartnerBreaker(
        { query: gw.db.query, client: gw.sb.client(), logger: createLogger({ level: 'silent' }), events },
        options,
      );
      const told = new PartnerBreaker(
        { query: reads.query, client: gw.sb.client(), logger: createLogger({ level: 'silent' }), events },
        options,
      );
      running.push(opener, told);
      reads.holdNext();
      const stale = told.refresh(true);
      await eventually(() => expect(reads.held()).toBe(true));
      for (let i = 0; i < 4; i++) opener.onCall(trouble(i));
      await eventually(() => expect(told.isOpen).toBe(true));
      // The reads it made after the notice have answered: the held one is the last to.
      const before = reads.answered();
      await eventually(() => expect(reads.answered()).toBeGreaterThan(before));
      reads.release();
      await stale;
      expect(told.isOpen).toBe(true);
      expect(told.refusal()).toBeDefined();
    });

    async function readState(): Promise<{ state: string }> {
      const [row] = await gw.db.query<{ state: string }>('SELECT state FROM "PartnerBreaker"', []);
      return row ?? { state: 'NONE' };
    }
  });
});

describe('the breaker table (partner/breaker-states.ts)', () => {
  it('names every state, and the states the code uses are its', () => {
    const named = new Set(breakerTransitions.flatMap((t) => [t.from, t.to]));
    expect(Object.values(BreakerState).filter((state) => !named.has(state))).toEqual([]);
    expect(breakerStates).toEqual({ closed: 'CLOSED', open: 'OPEN' });
  });

  it("classifies trouble once: a probe's error as the client reports its call", () => {
    const request = { method: 'GET', path: '/balance' };
    const api = (status: number) =>
      new PayoutApiError(
        status,
        { errorCode: 'x', serviceName: 's', userMessage: 'm', description: 'd', traceId: 't', dateTime: '2026-01-01T00:00:00Z' },
        request,
      );
    const cases: Array<[unknown, CallOutcome]> = [
      [api(429), 'throttled'],
      [api(503), 'server-error'],
      [api(404), 'refused'],
      [new PayoutResponseError(200, request, 'not json'), 'bad-response'],
      [new PayoutNetworkError('connect', false, request, { cause: new Error('refused') }), 'network-error'],
    ];
    for (const [error, outcome] of cases) expect(probeTrouble(error)).toBe(troubleOf(outcome));
    expect([troubleOf('ok'), troubleOf('refused'), troubleOf('aborted')]).toEqual([null, null, null]);
    expect([
      troubleOf('throttled'),
      troubleOf('server-error'),
      troubleOf('bad-response'),
      troubleOf('timeout'),
      troubleOf('network-error'),
    ]).toEqual(['THROTTLED', 'FAILING', 'FAILING', 'UNREACHABLE', 'UNREACHABLE']);
  });

  it('is shown in docs/internals/reliability/partner-breaker.md as the module has it', () => {
    const doc = readFileSync(new URL('../../docs/internals/reliability/partner-breaker.md', import.meta.url), 'utf8');
    const rows = breakerTransitions.map((t) => `| ${t.from} | ${t.to} | ${t.on} | ${t.when} | ${t.effect} |`);
    expect(rows.filter((row) => !doc.includes(row))).toEqual([]);
  });
});

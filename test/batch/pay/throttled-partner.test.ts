import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { subscribeSse } from '../../support/sse.ts';

/**
 * Issue 29, finding 2: a partner that throttles only creates and executes (balance and
 * status reads still served) looked like a silent stall: rows slept in place on 429s and
 * spent their retries, served reads kept the breaker from opening, and a balance probe
 * would have closed it while creates were still throttled. A throttled row rests without
 * spending a retry, the batch says why it waits (PARTNER_THROTTLED) in GraphQL and
 * batchProgress, and once the partner is back every row is paid exactly once.
 */
const ROWS = 60;

describe.each(testDatabaseKinds())('a partner throttling creates and executes, on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      env: {
        // One retry per step: throttling that spent retries would end rows FAILED.
        WORKER_MAX_RETRIES: '1',
        WORKER_RETRY_BASE_MS: '50',
        PAYOUT_MAX_RETRIES: '1',
        PARTNER_BREAKER_PROBE_MAX_MS: '1000',
      },
      sandbox: { inProgressMs: 50 },
      database: kind,
    });
  });
  afterAll(async () => {
    await gw.sb.sandbox.outage.clear();
    await gw.close();
  });

  it('rests throttled rows, says PARTNER_THROTTLED, and pays every row once when the partner is back', async () => {
    const csv = ['provider,amount,account', ...Array.from({ length: ROWS }, (_, i) => `bank-card-token,${200 + i}.00,token_success`)].join(
      '\n',
    );
    // Only creates and executes are throttled: balance and payment reads are served.
    await gw.sb.sandbox.outage.start({ mode: 'status', status: 429, retryAfterSeconds: 1, forMs: 600_000, kinds: ['create', 'execute'] });
    const batch = await gw.services().importer.import({ source: textSource(`${csv}\n`), name: 'throttled' });
    const sse = await subscribeSse(
      `${gw.gateway.url}/graphql`,
      {},
      `subscription { batchProgress(id: "${batch.id}") { status waiting { reason } } }`,
      (data) => `${data.batchProgress.status} ${data.batchProgress.waiting?.reason ?? '-'}`,
      (values) => values.includes('RUNNING PARTNER_THROTTLED') && values.at(-1)?.startsWith('COMPLETED') === true,
    );
    await sse.first;
    await gw.services().batches.approve(batch.id, { approver: 'anonymous' });

    const waiting = await eventually(async () => {
      const reply = await gw.gql(`query { batch(id: "${batch.id}") { status waiting { reason nextCheckAt waitingFor } } }`);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.batch.waiting?.reason).toBe('PARTNER_THROTTLED');
      return reply.body.data.batch.waiting as { reason: string; nextCheckAt: string | null; waitingFor: string };
    }, 60_000);
    expect(waiting.nextCheckAt).not.toBeNull();
    expect(waiting.waitingFor).toMatch(/take payments again/);
    await eventually(() => expect(sse.values).toContain('RUNNING PARTNER_THROTTLED'), 60_000);
    // Probes by rows' sends keep finding the throttling: the breaker stays open (a served
    // balance read or payment read would have closed it), and the wait is never dropped.
    const opened = await gw.db.prisma.partnerBreaker.findFirstOrThrow({ where: { state: 'OPEN' } });
    const probed = await eventually(async () => {
      const now = await gw.db.prisma.partnerBreaker.findFirstOrThrow({ where: { agentId: opened.agentId } });
      expect(now.probes).toBeGreaterThanOrEqual(3);
      return now;
    }, 60_000);
    expect(probed).toMatchObject({ state: 'OPEN', reason: 'THROTTLED', openedAt: opened.openedAt });
    expect(sse.values.slice(sse.values.indexOf('RUNNING PARTNER_THROTTLED'))).not.toContain('RUNNING -');

    // While throttled no row fails and none spends a retry.
    const midway = await gw.db.prisma.batchItem.findMany({ where: { batchId: batch.id } });
    expect(midway.filter((row) => row.status === 'FAILED' || row.status === 'NEEDS_REVIEW')).toEqual([]);
    expect(midway.filter((row) => row.retries > 0).map((row) => [row.line, row.status, row.retries, row.errorCode])).toEqual([]);

    await gw.sb.sandbox.outage.clear();
    await sse.done;
    const rows = await gw.db.prisma.batchItem.findMany({ where: { batchId: batch.id } });
    expect(rows.map((row) => row.status)).toEqual(Array.from({ length: ROWS }, () => 'COMPLETED'));
    expect(rows.filter((row) => row.retries > 0 || row.attempt !== 1).map((row) => [row.line, row.retries, row.attempt])).toEqual([]);
    // Every row paid exactly once: one payment per row at the sandbox, executed once.
    const ids = new Set(rows.map((row) => row.paymentId));
    const payments = (await gw.sb.allEffects()).filter((payment) => ids.has(payment.paymentId));
    const perId = new Map<string, number>();
    for (const payment of payments) perId.set(payment.paymentId, (perId.get(payment.paymentId) ?? 0) + Number(payment.executions));
    expect(perId.size).toBe(ROWS);
    expect([...perId.values()].filter((executions) => executions !== 1)).toEqual([]);
  });
});

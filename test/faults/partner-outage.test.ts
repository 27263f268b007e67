import { expect, it } from 'vitest';
import type { OutageSetting } from '../../src/sandbox/outage.ts';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { describeFaultSuite, FaultRig, SCENARIO_TIMEOUT_MS, ScenarioSummary, until, useFaultScenario } from '../support/fault-rig.ts';
import { payroll } from '../support/fault-payroll.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';
import { textSource } from '../support/batch.ts';
import { fromMinorUnits, toMinorUnits } from '../../src/money/money.ts';
import { checkRowEvents } from '../support/event-delivery-audit.ts';
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import { gqlAs } from '../support/fault-database.ts';
import { outcomeContradictions } from '../support/outcome-events.ts';

/**
 * Issue 19: the partner is down, hangs or throttles for far longer than one row's own
 * retries last. The partner breaker must stop the calls (only probes reach the partner
 * while it is open), strand no row, and the batch must end COMPLETED by itself once the
 * partner is back, every row paid once.
 *
 * One row's own retries last about 2 s here (WORKER_RETRY_BASE_MS 100, WORKER_MAX_RETRIES 3,
 * PAYOUT_MAX_RETRIES 1); each outage lasts 15 s, over five times as long.
 */
const OUTAGE_MS = 15_000;
const WORKERS = 2;
const CONCURRENCY = 8;

const outages: Array<[string, Omit<OutageSetting, 'forMs' | 'kinds'>]> = [
  ['connections refused', { mode: 'refuse' }],
  ['a hang', { mode: 'hang', then: 'answer' }],
  ['503 with Retry-After', { mode: 'status', status: 503, retryAfterSeconds: 2 }],
  ['429 with Retry-After', { mode: 'status', status: 429, retryAfterSeconds: 2 }],
];

describeFaultSuite('fault suite: the partner down, hanging, throttling or out of money mid-batch', () => {
  const scenario = useFaultScenario({ beforeClose: (rig) => rig.sb.sandbox.outage.clear() });

  for (const [name, setting] of outages) {
    it(
      `${name} for ${OUTAGE_MS / 1000} s: no row stranded, only probes sent while the breaker is open, COMPLETED by itself`,
      async () => {
        const summary = scenario.summary(`${name} mid-batch`);
        const rig = await scenario.start({
          sandbox: { faults: { latencyMs: 10, jitterMs: 10 } },
          workerEnv: {
            WORKER_CONCURRENCY: String(CONCURRENCY),
            WORKER_RETRY_BASE_MS: '100',
            WORKER_MAX_RETRIES: '3',
            PAYOUT_MAX_RETRIES: '1',
            PAYOUT_HEADERS_TIMEOUT_MS: '2000',
            PARTNER_BREAKER_PROBE_MAX_MS: '2000',
          },
        });
        const rows = 300;
        const batch = await rig.importApproved(payroll(rows).csv, name);
        for (let i = 0; i < WORKERS; i++) rig.startWorker();
        await until('a third of the rows to settle', async () => (await rig.progress(batch.id)).settled >= rows / 3, {
          abort: () => rig.noWorkerLeft(),
          diagnose: () => rig.diagnose(batch.id),
        });

        const sandbox = rig.sb.sandbox;
        await sandbox.outage.start({ ...setting, forMs: OUTAGE_MS, kinds: [...allCallKinds] });
        const opened = await until(
          'the partner breaker to open',
          async () => (await rig.prisma.partnerBreaker.findFirst({ where: { state: 'OPEN' } })) ?? undefined,
          { limitMs: OUTAGE_MS, diagnose: () => rig.diagnose(batch.id) },
        );
        await until('the outage to end', async () => sandbox.outage.current() === undefined, { limitMs: 2 * OUTAGE_MS });
        const midway = await rig.progress(batch.id);
        // The window is the breaker's own, as recorded (one host, one clock): from the open to
        // the close its probe made once the partner answered. Calls after the close are the
        // work going on again, whenever the test gets round to looking.
        const closed = await until(
          'the partner breaker to close by itself',
          async () => {
            const row = await rig.prisma.partnerBreaker.findFirstOrThrow({ where: { agentId: opened.agentId } });
            return row.state === 'CLOSED' && row.closedAt !== null && row.closedAt >= opened.openedAt! ? row : undefined;
          },
          { limitMs: 2 * OUTAGE_MS, diagnose: () => rig.diagnose(batch.id) },
        );
        const whileOpen = sandbox.testFeatures.callsBetween(opened.openedAt!.toISOString(), closed.closedAt!.toISOString());
        expect(whileOpen.complete, 'the sandbox still knew every call of the window').toBe(true);
        const { create, execute, read, list, balance } = whileOpen.byKind;
        const paymentCalls = create + execute + read + list;
        summary.set({
          breakerReason: opened.reason ?? '?',
          openSeconds: ((closed.closedAt!.getTime() - opened.openedAt!.getTime()) / 1000).toFixed(1),
          paymentCallsWhileOpen: paymentCalls,
          whileOpenByKind: JSON.stringify({ create, execute, read, list }),
          probesWhileOpen: balance,
          atOutageEnd: JSON.stringify(midway.byStatus),
        });

        expect.soft(midway.byStatus.NEEDS_REVIEW ?? 0, 'rows in NEEDS_REVIEW at the outage end').toBe(0);
        expect.soft(midway.byStatus.FAILED ?? 0, 'rows FAILED at the outage end').toBe(0);
        // Refused connections never arrive. Otherwise the only payment calls let through are the
        // ones a process sent before it heard of the open (at most one per row it works on), and
        // while throttled the probes, each one row's send (decision 0025): the failed ones
        // recorded, and the one answered.
        const rowProbes = opened.reason === 'THROTTLED' ? closed.probes + 1 : 0;
        summary.set({ rowProbes });
        expect
          .soft(paymentCalls, 'payment calls that reached the partner while the breaker was open')
          .toBeLessThanOrEqual(WORKERS * CONCURRENCY + rowProbes);
        await expectCompletedByItself(rig, summary, batch.id, rows);
      },
      SCENARIO_TIMEOUT_MS,
    );
  }

  it(
    'the balance runs out half-way, then is topped up: the batch pauses with the shortfall and ends COMPLETED by itself, every row paid once, told paid only',
    async () => {
      const receiver = await startEventReceiver();
      try {
        await balanceRunsOut(receiver);
      } finally {
        await receiver.close();
      }
    },
    SCENARIO_TIMEOUT_MS,
  );

  async function balanceRunsOut(receiver: EventReceiver): Promise<void> {
    const summary = scenario.summary('balance runs out half-way');
    const rig = await scenario.start({
      sandbox: { faults: { latencyMs: 10, jitterMs: 10 } },
      workerEnv: { WORKER_CONCURRENCY: String(CONCURRENCY), ...eventEnv },
    });
    // Issue 37: an ERP subscribed to the rows' events, delivered by the workers.
    const gateway = await rig.startGateway();
    const subscribed = await gqlAs(
      gateway.url,
      'fault-suite-key',
      `mutation($url: String!) { createEventSubscription(input: { url: $url }) {
      __typename ... on CreateEventSubscriptionSuccess { created { secret } } ... on Problem { code message } } }`,
      { url: receiver.url },
    );
    expect(subscribed.data?.createEventSubscription?.__typename, JSON.stringify(subscribed)).toBe('CreateEventSubscriptionSuccess');
    receiver.secrets.push(subscribed.data!.createEventSubscription.created.secret);
    const rows = 300;
    const file = payroll(rows);
    const batch = await (async () => {
      const imported = await rig.runtime.services.importer.import({ source: textSource(file.csv), name: 'funds', force: true });
      const total = toMinorUnits(imported.totalAmount.toFixed(2));
      // About half of what the rows need: approval refuses, with the shortfall.
      await setSandboxBalance(rig, { set: fromMinorUnits(total / 2n) });
      const refused = await rig.runtime.services.batches.approve(imported.id, { approver: 'fault-suite-approver' }).then(
        () => undefined,
        (error: Error & { code?: string }) => error,
      );
      expect(refused?.code).toBe('batch.insufficient-funds');
      expect(refused?.message).toMatch(/RUB short/);
      return rig.runtime.services.batches.approve(imported.id, { approver: 'fault-suite-approver', ignoreBalance: true });
    })();
    for (let i = 0; i < WORKERS; i++) rig.startWorker();
    const paused = await until(
      'the batch to pause for funds',
      async () => {
        const now = await rig.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } });
        return now.status === 'PAUSED' ? now : undefined;
      },
      { abort: () => rig.noWorkerLeft(), diagnose: () => rig.diagnose(batch.id) },
    );
    expect(paused.pauseReason).toBe('FUNDS');
    const shortfall = await until(
      'a shortfall to be read',
      async () => (await rig.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } })).shortfall ?? undefined,
    );
    const midway = await rig.progress(batch.id);
    summary.set({ shortfall: shortfall.toFixed(2), atPause: JSON.stringify(midway.byStatus) });
    expect.soft(midway.byStatus.FAILED ?? 0, 'rows FAILED while paused').toBe(0);
    expect.soft(midway.byStatus.NEEDS_REVIEW ?? 0, 'rows in NEEDS_REVIEW while paused').toBe(0);

    await setSandboxBalance(rig, { add: fromMinorUnits(toMinorUnits(shortfall.toFixed(2)) * 2n) });
    await expectCompletedByItself(rig, summary, batch.id, rows);

    // Rows that failed for lack of funds were paid under new paymentIds: "failed" was never their
    // outcome, so no batch_row.failed (docs/decisions/0026-final-outcome-events.md).
    await until(
      'the batch’s end event to be received',
      async () => receiver.received.some((e) => e.type === 'batch.completed' && e.data.batchId === batch.id),
      {
        abort: () => rig.firstUnexpectedExit() ?? rig.gatewayExits()[0],
      },
    );
    const requeued = await rig.prisma.batchItem.count({ where: { batchId: batch.id, attempt: { gte: 2 } } });
    const failedEvents = receiver.received.filter((e) => e.type === 'batch_row.failed' && e.data.batchId === batch.id);
    summary.set({ requeuedForFunds: requeued, rowFailedEvents: failedEvents.length });
    expect.soft(requeued, 'rows that failed for funds and were paid again').toBeGreaterThan(0);
    expect.soft(receiver.unverified, 'deliveries that failed Standard Webhooks verification').toEqual([]);
    expect
      .soft(
        failedEvents.map((e) => `line ${e.data.line} ${e.data.paymentId} ${e.data.code}`),
        'batch_row.failed for rows then paid',
      )
      .toEqual([]);
    expect.soft(outcomeContradictions(receiver.received), 'no final-outcome event followed by another outcome of the same row').toEqual([]);
    expect.soft((await checkRowEvents(rig, batch.id, receiver.received)).problems, 'each row told paid once').toEqual([]);
  }
});

/** Events delivered by the workers to a receiver on this machine, quickly; nothing waits on them by time. */
const eventEnv = { EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true', EVENT_POLL_MS: '50', EVENT_RETRY_BASE_MS: '50', EVENT_RETRY_MAX_MS: '500' };

async function setSandboxBalance(rig: FaultRig, change: { set?: string; add?: string }): Promise<void> {
  const reply = await rig.sb.raw('POST', '/_sandbox/balance', {
    body: JSON.stringify(change),
    headers: { 'content-type': 'application/json' },
  });
  if (reply.status !== 200) throw new Error(`the sandbox refused the balance change ${JSON.stringify(change)}: ${reply.status}`);
}

/** The end every scenario here must reach with nobody acting: COMPLETED, every row paid once. */
async function expectCompletedByItself(rig: FaultRig, summary: ScenarioSummary, batchId: string, rows: number): Promise<void> {
  const end = await rig.waitForBatchEnd(batchId);
  const result = await reconcile(rig, batchId);
  summary.reconciled(result);
  expect(result.violations, describeViolations(result)).toEqual([]);
  expect(end.batchStatus, JSON.stringify(end.byStatus)).toBe('COMPLETED');
  expect(end.byStatus).toEqual({ COMPLETED: rows });
  expect.soft(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
}

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FundsCheck } from '../../src/batch/funds/funds-check.ts';
import { eventTypes, isEventType } from '../../src/outbound/index.ts';
import type { BatchWorker } from '../../src/batch/pay/batch-worker.ts';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { testWorker, textSource, tokenPayroll } from '../support/batch.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import { setSandboxBalance, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { outcomeContradictions, type OutcomeEventLike } from '../support/outcome-events.ts';

const WAIT = 60_000;

/**
 * Issue 37, finding 1 and the batch.cancelled counts of finding 5
 * (docs/decisions/0026-final-outcome-events.md): an event of an outcome is written only when
 * the outcome is final. A single payment refused with the partner down and sent again under
 * the same paymentId is not told failed; a row that failed for lack of funds and is paid
 * later is not told failed; a cancelled batch tells each row's end, and its counts say the
 * same as its rows' events.
 */
describe('outcomeContradictions, the event tests’ check', () => {
  const row = (id: string, type: string, line = 2, paymentId = 'b1-2') => ({
    id,
    type,
    data: { batchId: 'b1', line, paymentId, status: 'X' },
  });
  const payment = (id: string, type: string) => ({ id, type, data: { paymentId: 'p1', status: 'X' } });

  it('names a final event followed by another outcome of the same row (under any paymentId) or payment', () => {
    expect(outcomeContradictions([row('1', 'batch_row.failed'), row('2', 'batch_row.paid', 2, 'b1-2-r2')])).toHaveLength(1);
    expect(outcomeContradictions([payment('1', 'payment.failed'), payment('2', 'payment.paid')])).toEqual([
      'payment p1: payment.failed (X) → payment.paid (X)',
    ]);
    expect(outcomeContradictions([row('1', 'batch_row.settled_by_review'), row('2', 'batch_row.needs_review')])).toHaveLength(1);
    expect(
      outcomeContradictions([
        row('1', 'batch_row.failed'),
        row('2', 'batch_row.retried', 2, 'b1-2-r2'),
        row('3', 'batch_row.paid', 2, 'b1-2-r2'),
        row('4', 'batch_row.failed', 2, 'b1-2-r2'),
      ]),
    ).toHaveLength(1);
  });

  it('allows repeats of one event, what is not final before the outcome, and other rows and payments', () => {
    expect(
      outcomeContradictions([
        row('1', 'batch_row.needs_review'),
        row('2', 'batch_row.settled_by_review'),
        row('2', 'batch_row.settled_by_review'),
        row('3', 'batch_row.failed', 3),
        row('7', 'batch_row.retried', 3, 'b1-3-r2'),
        row('8', 'batch_row.paid', 3, 'b1-3-r2'),
        payment('4', 'payment.rejected'),
        payment('5', 'payment.paid'),
        payment('5', 'payment.paid'),
        { id: '6', type: 'batch.completed_with_failures', data: { batchId: 'b1' } },
      ]),
    ).toEqual([]);
  });
});

describe.each(testDatabaseKinds())('final-outcome events on $name', (kind) => {
  let gw: TestGateway;
  let receiver: EventReceiver;
  const running: BatchWorker[] = [];
  beforeAll(async () => {
    receiver = await startEventReceiver();
    gw = await startTestGateway({
      database: kind,
      env: { WORKER_IN_PROCESS: 'false', PAYOUT_MAX_RETRIES: '0', EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true' },
      sandbox: { inProgressMs: 50 },
    });
    const created = await gw.gql(
      `mutation($url: String!) { createEventSubscription(input: { url: $url }) { __typename ... on CreateEventSubscriptionSuccess { created { secret } } } }`,
      { url: receiver.url },
    );
    expect(created.body.data.createEventSubscription.__typename).toBe('CreateEventSubscriptionSuccess');
  });
  afterEach(async () => {
    await gw.sb.sandbox.outage.clear();
    await Promise.all(running.splice(0).map((w) => w.stop()));
    await setSandboxBalance(gw, { set: '10000000.00' });
  });
  afterAll(async () => {
    await gw.close();
    await receiver.close();
  });

  const services = () => gw.services();
  const db = () => gw.db.prisma;
  /** The outbox in the order a subscription receives it. */
  const outbox = () => gw.db.query<OutcomeEventLike>(`SELECT id::text AS id, type, data FROM "OutboundEvent" ORDER BY xid, seq`, []);
  const ofBatch = async (batchId: string) => (await outbox()).filter((e) => e.data.batchId === batchId);
  const worker = () => {
    const w = testWorker(gw, { retryBaseMs: 5 }, undefined, {
      funds: new FundsCheck({ query: gw.db.query, client: services().client }, { tariffs: {}, defaultPercent: '2' }),
    });
    running.push(w);
    w.start();
    return w;
  };
  const status = async (id: string) => (await db().batch.findUniqueOrThrow({ where: { id } })).status;
  let serial = 0;
  async function imported(rows: number) {
    return services().importer.import({ source: textSource(tokenPayroll(++serial, rows)) });
  }

  it('a create refused with the partner down, sent again under the same paymentId and paid: payment.rejected, then payment.paid, never payment.failed', async () => {
    const create = (paymentId: string) =>
      gw.gql('mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }', {
        input: { paymentId, amount: '12.50', execute: true, recipient: { bankCardToken: { account: 'token_success' } } },
      });
    // The provider's live details are read (and kept) first, as on any day the partner was up.
    expect((await create('before-outage-1')).body.data?.createPayment?.__typename).toBe('CreatePaymentSuccess');
    await gw.sb.sandbox.outage.start({ mode: 'refuse', forMs: 120_000, kinds: [...allCallKinds] });
    const refused = await create('sent-again-1');
    expect(refused.body.data?.createPayment?.__typename).not.toBe('CreatePaymentSuccess');
    expect((await db().payment.findUniqueOrThrow({ where: { paymentId: 'sent-again-1' } })).status).toBe('REJECTED');
    await gw.sb.sandbox.outage.clear();

    const again = await create('sent-again-1');
    expect(again.body.data?.createPayment?.__typename, JSON.stringify(again.body)).toBe('CreatePaymentSuccess');
    await eventually(async () => {
      await gw.gql(`{ payment(paymentId: "sent-again-1") { paymentId } }`);
      expect((await db().payment.findUniqueOrThrow({ where: { paymentId: 'sent-again-1' } })).status).toBe('COMPLETED');
    }, WAIT);
    const events = (await outbox()).filter((e) => e.data.paymentId === 'sent-again-1');
    expect(events.map((e) => [e.type, e.data.status])).toEqual([
      ['payment.rejected', 'REJECTED'],
      ['payment.paid', 'COMPLETED'],
    ]);
    expect(events[0]!.data.code).toMatch(/^network\./);
    expectDocumentedFields(events);
    expect(outcomeContradictions(await outbox())).toEqual([]);
  });

  it('rows that fail for lack of funds and are paid after a top-up are told paid only', async () => {
    // More rows than a worker holds (twice its concurrency): rows still wait unclaimed when the
    // money runs out, so the batch pauses rather than ends (no row left to move).
    const batch = await imported(30);
    // Enough for about two rows and their commission.
    await setSandboxBalance(gw, { set: '250.00' });
    await services().batches.approve(batch.id, { approver: 'anonymous', ignoreBalance: true });
    worker();
    await eventually(
      async () =>
        expect(
          await status(batch.id),
          JSON.stringify(
            await db().batchItem.findMany({
              where: { batchId: batch.id },
              select: { line: true, status: true, errorCode: true, errorMessage: true, attempt: true },
            }),
          ),
        ).toBe('PAUSED'),
      WAIT,
    );
    // Rows did fail for funds: they wait under new paymentIds.
    expect((await db().batchItem.findMany({ where: { batchId: batch.id, attempt: { gte: 2 } } })).length).toBeGreaterThan(0);
    await setSandboxBalance(gw, { add: '5000.00' });
    await eventually(async () => expect(await status(batch.id)).toBe('COMPLETED'), WAIT);

    const events = await ofBatch(batch.id);
    const rowEvents = events.filter((e) => e.type.startsWith('batch_row.'));
    expect(rowEvents.filter((e) => e.type !== 'batch_row.paid').map((e) => [e.type, e.data.line, e.data.code])).toEqual([]);
    expect(rowEvents.map((e) => e.data.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
    expect(events.at(-1)).toMatchObject({ type: 'batch.completed', data: { totals: { paidRows: 30, failedRows: 0, cancelledRows: 0 } } });
    expect(outcomeContradictions(await outbox())).toEqual([]);
  });

  it('a batch paused for funds and then cancelled: every row that was to be paid is told cancelled, and batch.cancelled counts them as such', async () => {
    const batch = await imported(30);
    await setSandboxBalance(gw, { set: '250.00' });
    await services().batches.approve(batch.id, { approver: 'anonymous', ignoreBalance: true });
    const w = worker();
    await eventually(async () => expect(await status(batch.id)).toBe('PAUSED'), WAIT);
    await services().batches.cancel(batch.id);
    await eventually(async () => expect((await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt).not.toBeNull(), WAIT);
    await w.stop();

    await expectEndsAgree(batch.id, 'batch.cancelled');
    const rows = await db().batchItem.findMany({ where: { batchId: batch.id } });
    expect(rows.filter((r) => r.status === 'CANCELLED').length).toBeGreaterThan(0);
  });

  it('a batch cancelled while it pays: each row’s end (paid, failed, cancelled) is told once, before batch.cancelled, which counts them so', async () => {
    const lines = Array.from(
      { length: 40 },
      (_, i) => `bank-card-token,${300 + i}.00,${i % 5 === 4 ? 'token_execute_failed' : 'token_success'}`,
    ).join('\n');
    const batch = await services().importer.import({ source: textSource(`provider,amount,account\n${lines}\n`) });
    await services().batches.approve(batch.id, { approver: 'anonymous', ignoreBalance: true });
    const w = worker();
    // Cancelled once some rows have ended and others have not been sent.
    await eventually(
      async () => expect(await db().batchItem.count({ where: { batchId: batch.id, finishedAt: { not: null } } })).toBeGreaterThan(0),
      WAIT,
    );
    await services().batches.cancel(batch.id);
    await eventually(async () => expect((await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt).not.toBeNull(), WAIT);
    await w.stop();

    const events = await expectEndsAgree(batch.id, 'batch.cancelled');
    expect(events.filter((e) => e.type === 'batch_row.cancelled').length).toBeGreaterThan(0);
    for (const event of events.filter((e) => e.type === 'batch_row.cancelled'))
      expect(['batch.cancelled', 'batch.cancelled-after-create']).toContain(event.data.code);
  });

  it('a row that failed for funds while its batch was paused, then the batch cancelled: told failed once, at the end, the rest told cancelled', async () => {
    const batch = await imported(3);
    await services().batches.approve(batch.id, { approver: 'anonymous', ignoreBalance: true });
    await services().batches.pause(batch.id);
    // As the worker leaves a row whose execute the partner refused for funds after the pause
    // (its event waits: a resume would pay it again under a new paymentId).
    const [first] = await db().batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' }, take: 1 });
    await db().batchItem.update({
      where: { id: first!.id },
      data: { status: 'FAILED', errorCode: 'INSUFFICIENT_FUNDS', errorMessage: 'not enough money on the balance', finishedAt: new Date() },
    });
    await services().batches.cancel(batch.id);
    await services().batches.finishIfDone(batch.id);

    const events = await expectEndsAgree(batch.id, 'batch.cancelled');
    expect(events.filter((e) => e.type === 'batch_row.failed').map((e) => [e.data.line, e.data.code])).toEqual([
      [first!.line, 'INSUFFICIENT_FUNDS'],
    ]);
    expect(events.filter((e) => e.type === 'batch_row.cancelled')).toHaveLength(2);
    expect(events.at(-1)!.data.totals).toMatchObject({ paidRows: 0, failedRows: 1, cancelledRows: 2 });
    // Ending it again (the idle sweep) tells nothing twice.
    await services().batches.finishIfDone(batch.id);
    expect(await ofBatch(batch.id)).toHaveLength(events.length);
  });

  it('a row under review read still in progress is not told settled: the worker tells its outcome once it has one', async () => {
    const batch = await imported(1);
    await services().batches.approve(batch.id, { approver: 'anonymous', ignoreBalance: true });
    const w = worker();
    await eventually(async () => expect(await status(batch.id)).toBe('COMPLETED'), WAIT);
    await w.stop();
    const { paymentId } = await db().batchItem.findFirstOrThrow({ where: { batchId: batch.id } });
    // As a worker leaves a row it could not settle (test/batch/review/review.test.ts underReview), its payment still executing upstream.
    await db().batchItem.updateMany({
      where: { batchId: batch.id },
      data: { status: 'NEEDS_REVIEW', errorCode: 'payout.outcome.unknown', errorMessage: 'could not be settled' },
    });
    await db().batch.update({ where: { id: batch.id }, data: { status: 'COMPLETED_WITH_FAILURES' } });
    const alter = (to: string) =>
      gw.sb.raw('PATCH', `/_sandbox/payments/${paymentId}`, {
        body: JSON.stringify({ status: to }),
        headers: { 'content-type': 'application/json' },
      });
    expect((await alter('IN_PROGRESS')).status).toBe(200);
    const before = (await ofBatch(batch.id)).length;

    const report = await services().reviews.review(batch.id, { actor: 'key:amir', role: 'approver', requestId: null });
    expect(report.rows).toMatchObject([{ verdict: 'in-progress', status: 'IN_PROGRESS' }]);
    expect((await alter('COMPLETED')).status).toBe(200);
    worker();
    await eventually(async () => expect(await status(batch.id)).toBe('COMPLETED'), WAIT);
    const after = (await ofBatch(batch.id)).slice(before);
    expect(after.map((e) => [e.type, e.data.status ?? null])).toEqual([
      ['batch_row.paid', 'COMPLETED'],
      ['batch.completed', 'COMPLETED'],
    ]);
    expect(outcomeContradictions(after)).toEqual([]);
  });

  it('a person pays a finished batch’s failed rows again: batch_row.retried reopens each row before its next outcome', async () => {
    const batch = await services().importer.import({
      source: textSource('provider,amount,account\nbank-card-token,41.00,token_success\nbank-card-token,42.00,token_execute_failed\n'),
    });
    await services().batches.approve(batch.id, { approver: 'anonymous', ignoreBalance: true });
    let w = worker();
    await eventually(async () => expect(await status(batch.id)).toBe('COMPLETED_WITH_FAILURES'), WAIT);
    await w.stop();
    const first = await db().batchItem.findFirstOrThrow({ where: { batchId: batch.id, line: 3 } });
    await services().batches.retryFailed(batch.id, { actor: 'key:amir', role: 'approver', requestId: null });
    w = worker();
    await eventually(async () => {
      expect(await status(batch.id)).toBe('COMPLETED_WITH_FAILURES');
      expect(await db().batchItem.findFirstOrThrow({ where: { batchId: batch.id, line: 3 } })).toMatchObject({
        attempt: 2,
        status: 'FAILED',
      });
    }, WAIT);

    const events = await ofBatch(batch.id);
    const line3 = events.filter((e) => e.data.line === 3);
    expect(line3.map((e) => e.type)).toEqual(['batch_row.failed', 'batch_row.retried', 'batch_row.failed']);
    expect(line3[1]!.data).toMatchObject({ previousPaymentId: first.paymentId, previousStatus: 'FAILED', amount: '42.00', by: 'key:amir' });
    expect(line3[1]!.data.paymentId).toBe(line3[2]!.data.paymentId);
    expect(line3[1]!.data.paymentId).not.toBe(first.paymentId);
    expect(events.filter((e) => e.data.line === 2).map((e) => e.type)).toEqual(['batch_row.paid']);
    expectDocumentedFields(events);
    expect(outcomeContradictions(events)).toEqual([]);
  });

  /** Every event carries exactly the fields its type documents (outbound/event-types.ts), the new types too. */
  function expectDocumentedFields(events: readonly OutcomeEventLike[]): void {
    for (const event of events) {
      expect(isEventType(event.type), event.type).toBe(true);
      expect(Object.keys(event.data).sort(), event.type).toEqual([...eventTypes[event.type as keyof typeof eventTypes].fields].sort());
    }
  }

  /** Each row to be paid has exactly one final event, before the batch's end, and the end's counts are those events'. */
  async function expectEndsAgree(batchId: string, endType: string): Promise<OutcomeEventLike[]> {
    const events = await ofBatch(batchId);
    const ends = events.filter((e) => e.type === endType);
    expect(ends).toHaveLength(1);
    expect(events.at(-1)!.type).toBe(endType);
    const finals = events.filter((e) => ['batch_row.paid', 'batch_row.failed', 'batch_row.cancelled'].includes(e.type));
    const rows = await db().batchItem.findMany({ where: { batchId, status: { notIn: ['INVALID', 'DUPLICATE'] } } });
    expect(finals.map((e) => e.data.line).sort()).toEqual(rows.map((r) => r.line).sort());
    const count = (type: string) => finals.filter((e) => e.type === type).length;
    const sum = (type: string) =>
      (finals.filter((e) => e.type === type).reduce((total, e) => total + Math.round(Number(e.data.amount) * 100), 0) / 100).toFixed(2);
    expect(ends[0]!.data.totals).toMatchObject({
      paidRows: count('batch_row.paid'),
      paidAmount: sum('batch_row.paid'),
      failedRows: count('batch_row.failed'),
      failedAmount: sum('batch_row.failed'),
      cancelledRows: count('batch_row.cancelled'),
      cancelledAmount: sum('batch_row.cancelled'),
    });
    expect(outcomeContradictions(events)).toEqual([]);
    expectDocumentedFields(events);
    return events;
  }
});

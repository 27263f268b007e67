import { lenientToMinorUnits, MONEY_VALUE, toMinorUnits } from '../../src/money/money.ts';
import { cancelCodes, failedItemStatuses, rowStates } from '../../src/batch/states/row-states.ts';
import type { ReceivedEvent } from './event-receiver.ts';
import type { FaultRig } from './fault-rig.ts';

/**
 * What a receiver got, judged against the outbox and the rows in the database, after a run
 * with faults (test/faults/event-delivery-kills.test.ts). Each list of problems is empty
 * when delivery kept its promise: at least once, in order, each resting row told once.
 */
export interface DeliveryCounts {
  /** Deliveries the receiver verified and took (2xx). */
  deliveries: number;
  /** Distinct event ids among them. */
  distinct: number;
  /** Deliveries beyond the first of each id. */
  duplicates: number;
  /** The most times one id was delivered, and which. */
  maxPerId: number;
  maxId: string | undefined;
  /** Repeats whose sequence differs from the id's first delivery (a replay would; a crash should not). */
  repeatsWithNewSequence: number;
}

export function countDeliveries(received: readonly ReceivedEvent[]): DeliveryCounts {
  const times = new Map<string, number>();
  const firstSequence = new Map<string, number>();
  let repeatsWithNewSequence = 0;
  for (const event of received) {
    times.set(event.id, (times.get(event.id) ?? 0) + 1);
    const first = firstSequence.get(event.id);
    if (first === undefined) firstSequence.set(event.id, event.sequence);
    else if (first !== event.sequence) repeatsWithNewSequence += 1;
  }
  let maxPerId = 0;
  let maxId: string | undefined;
  for (const [id, n] of times) {
    if (n > maxPerId) [maxPerId, maxId] = [n, id];
  }
  return {
    deliveries: received.length,
    distinct: times.size,
    duplicates: received.length - times.size,
    maxPerId,
    maxId,
    repeatsWithNewSequence,
  };
}

/**
 * Distinct ids in order of first arrival carry sequences 1, 2, 3 … without a gap; anything
 * else is a repeat of an id already seen. Names the first few breaks with their neighbours.
 */
export function sequenceBreaks(received: readonly ReceivedEvent[]): string[] {
  const seen = new Set<string>();
  const breaks: string[] = [];
  for (const [index, event] of received.entries()) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    if (event.sequence !== seen.size) {
      breaks.push(`delivery #${index + 1}: new id ${event.id} (${event.type}) came with sequence ${event.sequence}, expected ${seen.size}`);
    }
  }
  return breaks.slice(0, 10);
}

export interface OutboxEvent {
  id: string;
  type: string;
}

/** The outbox in delivery order ((xid, seq)), as the subscription must see it. */
export function readOutbox(rig: FaultRig): Promise<OutboxEvent[]> {
  return rig.prisma.$queryRaw<OutboxEvent[]>`SELECT id::text AS id, type FROM "OutboundEvent" ORDER BY xid, seq`;
}

/**
 * The receiver's distinct ids, in order of first arrival, against the outbox in (xid, seq)
 * order: an event missing (lost), one arriving before an earlier one (out of order), one the
 * outbox does not hold. Names the first place they part.
 */
export function orderAgainstOutbox(received: readonly ReceivedEvent[], outbox: readonly OutboxEvent[]): string[] {
  const firstArrivals: ReceivedEvent[] = [];
  const seen = new Set<string>();
  for (const event of received) {
    if (!seen.has(event.id)) {
      seen.add(event.id);
      firstArrivals.push(event);
    }
  }
  const problems: string[] = [];
  const inOutbox = new Set(outbox.map((e) => e.id));
  const missing = outbox.filter((e) => !seen.has(e.id));
  if (missing.length > 0)
    problems.push(
      `${missing.length} outbox events never delivered, first: ${missing
        .slice(0, 5)
        .map((e) => `${e.id} (${e.type})`)
        .join(', ')}`,
    );
  const unknown = firstArrivals.filter((e) => !inOutbox.has(e.id));
  if (unknown.length > 0)
    problems.push(
      `${unknown.length} delivered ids not in the outbox, first: ${unknown
        .slice(0, 5)
        .map((e) => e.id)
        .join(', ')}`,
    );
  const delivered = outbox.filter((e) => seen.has(e.id));
  const arrived = firstArrivals.filter((e) => inOutbox.has(e.id));
  const at = delivered.findIndex((e, i) => e.id !== arrived[i]?.id);
  if (at >= 0) {
    problems.push(
      `first arrivals leave the outbox's (xid, seq) order at position ${at + 1}: expected ${delivered[at]!.id} (${delivered[at]!.type}), got ${arrived[at]?.id} (${arrived[at]?.type}, sequence ${arrived[at]?.sequence})`,
    );
  }
  return problems;
}

const restingEvent: Record<string, string> = {
  [rowStates.completed]: 'batch_row.paid',
  [rowStates.failed]: 'batch_row.failed',
  [rowStates.expired]: 'batch_row.failed',
  [rowStates.needsReview]: 'batch_row.needs_review',
  // Rows its cancel ended (batch.cancelled, batch.cancelled-after-create): told with the batch's end.
  [rowStates.cancelled]: 'batch_row.cancelled',
};
const cancelledByTheBatch = new Set<string>(Object.values(cancelCodes));
const restingTypes = new Set(Object.values(restingEvent));

export interface RowEventCheck {
  rowsAtRest: number;
  rowEvents: number;
  problems: string[];
}

/**
 * Each row that came to rest (paid, not paid, for a person, cancelled by its batch) has exactly one resting event
 * (distinct ids) under its paymentId, of the type and status the database holds; no resting
 * event names a paymentId that is not a resting row of the batch.
 */
export async function checkRowEvents(rig: FaultRig, batchId: string, received: readonly ReceivedEvent[]): Promise<RowEventCheck> {
  const rows = await rig.prisma.batchItem.findMany({
    where: { batchId },
    select: { line: true, paymentId: true, status: true, errorCode: true },
  });
  const byPayment = new Map<string, Map<string, ReceivedEvent>>();
  for (const event of received) {
    if (!restingTypes.has(event.type) || event.data.batchId !== batchId) continue;
    const paymentId = String(event.data.paymentId);
    const events = byPayment.get(paymentId) ?? new Map<string, ReceivedEvent>();
    events.set(event.id, event);
    byPayment.set(paymentId, events);
  }
  const problems: string[] = [];
  const resting = rows.filter(
    (row) => restingEvent[row.status] !== undefined && (row.status !== rowStates.cancelled || cancelledByTheBatch.has(row.errorCode ?? '')),
  );
  for (const row of resting) {
    const events = [...(byPayment.get(row.paymentId)?.values() ?? [])];
    const expected = restingEvent[row.status]!;
    if (events.length !== 1) {
      problems.push(
        `line ${row.line} (${row.paymentId}, ${row.status}): ${events.length} resting events ${JSON.stringify(events.map((e) => [e.type, e.sequence]))}`,
      );
    } else if (events[0]!.type !== expected || events[0]!.data.status !== row.status) {
      problems.push(
        `line ${row.line} (${row.paymentId}, ${row.status}): event ${events[0]!.type} with status ${events[0]!.data.status}, expected ${expected}`,
      );
    }
  }
  const restingIds = new Set(resting.map((row) => row.paymentId));
  for (const [paymentId, events] of byPayment) {
    if (!restingIds.has(paymentId)) problems.push(`${paymentId}: ${events.size} resting events for a row not at rest`);
  }
  const rowEvents = [...byPayment.values()].reduce((sum, events) => sum + events.size, 0);
  return {
    rowsAtRest: resting.length,
    rowEvents,
    problems: problems.slice(0, 20).concat(problems.length > 20 ? [`… ${problems.length - 20} more`] : []),
  };
}

const endTypes = new Set(['batch.completed', 'batch.completed_with_failures', 'batch.cancelled']);

/** The batch's end events (distinct ids) and the totals the database gives for it, in minor units. */
export async function endEventsAndTotals(rig: FaultRig, batchId: string, received: readonly ReceivedEvent[]) {
  const ends = new Map<string, ReceivedEvent>();
  for (const event of received) if (endTypes.has(event.type) && event.data.batchId === batchId) ends.set(event.id, event);
  const batch = await rig.prisma.batch.findUniqueOrThrow({ where: { id: batchId }, select: { status: true } });
  const items = await rig.prisma.batchItem.findMany({ where: { batchId }, select: { status: true, amount: true, paymentId: true } });
  const minor = (value: { toFixed(digits: number): string }) => toMinorUnits(value.toFixed(2));
  const paid = items.filter((i) => i.status === rowStates.completed);
  const failed = items.filter((i) => i.status !== rowStates.cancelled && (failedItemStatuses as readonly string[]).includes(i.status));
  const cancelled = items.filter((i) => i.status === rowStates.cancelled);
  const held = items.filter((i) => i.status === rowStates.duplicate);
  const payments = await rig.prisma.payment.findMany({
    where: { paymentId: { in: paid.map((i) => i.paymentId) } },
    select: { commission: true },
  });
  const sum = (list: typeof items) => String(list.reduce((total, i) => total + minor(i.amount), 0n));
  const database = {
    paidRows: paid.length,
    paidAmount: sum(paid),
    failedRows: failed.length,
    failedAmount: sum(failed),
    cancelledRows: cancelled.length,
    cancelledAmount: sum(cancelled),
    heldRows: held.length,
    heldAmount: sum(held),
    commission: String(payments.reduce((total, p) => total + (p.commission === null ? 0n : minor(p.commission)), 0n)),
  };
  // Compared by value: how each amount is written is judged apart (`amountsNotMoney`).
  const asMinor = (totals: Record<string, any> | undefined) =>
    totals === undefined
      ? undefined
      : {
          paidRows: totals.paidRows,
          paidAmount: String(lenientToMinorUnits(totals.paidAmount)),
          failedRows: totals.failedRows,
          failedAmount: String(lenientToMinorUnits(totals.failedAmount)),
          cancelledRows: totals.cancelledRows,
          cancelledAmount: String(lenientToMinorUnits(totals.cancelledAmount)),
          heldRows: totals.heldRows,
          heldAmount: String(lenientToMinorUnits(totals.heldAmount)),
          commission: String(lenientToMinorUnits(totals.commission)),
        };
  const amountFields = ['paidAmount', 'failedAmount', 'cancelledAmount', 'heldAmount', 'commission'] as const;
  return {
    batchStatus: batch.status,
    ends: [...ends.values()].map((e) => ({ type: e.type, status: e.data.status, totals: asMinor(e.data.totals) })),
    database,
    /** Totals' amounts not written as money (two decimals, as "1234.50"), by field and value. */
    amountsNotMoney: [...ends.values()].flatMap((e) =>
      amountFields
        .filter((field) => !MONEY_VALUE.test(String(e.data.totals?.[field])))
        .map((field) => `${e.type} totals.${field} = ${JSON.stringify(e.data.totals?.[field])}`),
    ),
  };
}

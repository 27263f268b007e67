import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { outcomeEvents, sqlEventType, toldSql, type EventType } from '../../../outbound/index.ts';
import type { BatchItemStatus } from '../../../db/generated/enums.ts';
import { cancelCodes, rowStates, unfundedFailedSql, unfundedRowSql, unfundedWaitBatchStates } from '../../states/row-states.ts';

const eventOf = (type: EventType) => sqlEventType(type);

/** Rows come to rest as paid, not paid, or for a person to decide: the states that send a row event. */
const restingStates = [rowStates.completed, rowStates.failed, rowStates.expired, rowStates.needsReview] as const;

/** The row events that tell a final outcome: one of them, once, per row that was to be paid (and per payment of it). */
const finalRowEvents: EventType[] = ['batch_row.paid', 'batch_row.failed', 'batch_row.cancelled', 'batch_row.settled_by_review'];

/** The event a row tells when it comes to rest in a state (the CASE below is built from it; so is the model's P8). */
export const rowEventTypeOf = {
  [rowStates.completed]: 'batch_row.paid',
  [rowStates.failed]: 'batch_row.failed',
  [rowStates.expired]: 'batch_row.failed',
  [rowStates.needsReview]: 'batch_row.needs_review',
  [rowStates.cancelled]: 'batch_row.cancelled',
} as const satisfies Partial<Record<BatchItemStatus, EventType>>;

/** The states whose event is a final outcome (outcomeEvents): a row told one is never told another outcome, unless a retry reopens it. */
export const finalOutcomeStates = (Object.keys(rowEventTypeOf) as (keyof typeof rowEventTypeOf)[]).filter(
  (state) => outcomeEvents[rowEventTypeOf[state]] === 'final',
);

/**
 * type, "subjectId" and data of alias `r`'s event: BatchItem columns as they are now;
 * `commission` an SQL expression, or NULL. Only the masked recipient travels: the sealed card
 * data is dropped. Every field is in every event, null when it has no value (docs/api/events.md).
 */
function rowEventColumns(commission: string): string {
  const arms = Object.entries(rowEventTypeOf).map(([state, type]) => `WHEN ${sqlName(state)} THEN ${eventOf(type)}`);
  return `CASE r.status ${arms.join(' ')} END AS type,
    r."paymentId" AS "subjectId",
    jsonb_build_object(
      'batchId', r."batchId", 'line', r.line, 'paymentId', r."paymentId", 'status', r.status,
      'amount', r.amount::text, 'currency', r.currency, 'commission', (${commission})::text,
      'recipient', r.fields - '$sealed', 'code', r."errorCode", 'message', r."errorMessage") AS data`;
}

/**
 * The outbound events (outbound/event-types.ts) of rows a statement moved: `rows` is a CTE of
 * BatchItem columns as they are now (status, line, paymentId, amount, currency, errorCode,
 * errorMessage, fields, batchId); `commission` an SQL expression over it, or NULL.
 *
 * A row that failed for lack of funds in a batch that puts it back (running, or paused) is
 * not told: it will be paid under a new paymentId, so "failed" would not be its outcome
 * (docs/decisions/0026-final-outcome-events.md). Should its batch end with it still failed,
 * the end tells it (rowEndEventsSelect).
 */
export function rowEventsSelect(rows: string, commission: string): string {
  return `SELECT ${rowEventColumns(commission)}
  FROM ${rows} AS r
  WHERE r.status IN (${sqlList(restingStates)}) AND NOT ${heldBackSql('r')}
  ORDER BY r."batchId", r.line`;
}

/**
 * True for a row of alias `r` (BatchItem columns, fields among them) whose failure is not its
 * outcome yet: it failed for lack of funds, and its batch will pay it again under a new
 * paymentId. Its event waits for the batch's end (rowEndEventsSelect).
 */
export function heldBackSql(r: string): string {
  return `(${unfundedRowSql(r)} AND EXISTS (
      SELECT 1 FROM "Batch" AS b WHERE b.id = ${r}."batchId" AND b.status IN (${sqlList(unfundedWaitBatchStates)})))`;
}

/**
 * The row events a batch's end tells (`ended`: a CTE of the batches ended, id and status),
 * each row's once, in line order, for the end event to follow:
 * - rows it cancelled (never sent, or created and not executed) when it had been approved:
 *   batch_row.cancelled, the end of each row that was to be paid and was not;
 * - rows that failed for lack of funds and were never put back (the batch was cancelled, or
 *   ended meanwhile), whose failure no event told yet: batch_row.failed, now their outcome.
 * A batch discarded before approval had no row to pay: its rows are only counted.
 */
export function rowEndEventsSelect(ended: string): string {
  return `SELECT e.id AS "batchId", r.line, ${rowEventColumns('NULL')}
  FROM ${ended} AS e JOIN "Batch" AS b ON b.id = e.id JOIN "BatchItem" AS r ON r."batchId" = e.id
  WHERE (r.status = ${sqlName(rowStates.cancelled)} AND r."errorCode" IN (${Object.values(cancelCodes)
    .map((c) => `'${c}'`)
    .join(', ')}) AND b."approvedAt" IS NOT NULL)
    OR (${unfundedFailedSql('r')} AND NOT ${toldSql('r."paymentId"', finalRowEvents)})`;
}

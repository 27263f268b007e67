import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { sqlEventType, type EventType } from '../../../outbound/index.ts';
import { retryableItemStatuses, rowStates, unfundedCodes } from '../../states/row-states.ts';

/** A time as every event writes it, as its `timestamp` (event-body.ts): ISO 8601, UTC, milliseconds. */
export function sqlEventTime(column: string): string {
  return `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * The fields of each type (outbound/event-types.ts) the callers' `extra` may not give, so that
 * every field is in every event, null when it has no value. A statement's CTEs read the batch
 * as it was before the statement (pause-for-funds.ts and resume-funded.ts each write and tell in one): what a pause sets is
 * given by its caller; why, who and since when a batch had paused are kept on it after a
 * resume, so a resume reads them whoever resumed it.
 */
const typeFields: Partial<Record<EventType, string>> = {
  'batch.scheduled': `'by', NULL::text, 'rescheduledFrom', NULL::text`,
  'batch.started': `'by', NULL::text`,
  // A pause no person asked for names only its reason (funds/sql/pause-for-funds.ts): the balance's.
  'batch.paused': `'reason', NULL::text, 'by', 'funds'`,
  // pausedFor: the name pauseReason had first (docs/api/events.md), kept for receivers reading it.
  'batch.resumed': `'by', NULL::text, 'pauseReason', b."pauseReason", 'pausedFor', b."pauseReason", 'pausedAt', ${sqlEventTime('b."pausedAt"')}`,
};

/**
 * Rows not sent yet: waiting, and those that failed for lack of funds (no money moved), which
 * a pause for funds or a resume sends again (funds/sql/requeue-unfunded.ts) in the statement of its event.
 */
const notSentYet = `(i.status = ${sqlName(rowStates.pending)} OR (i.status IN (${sqlList(retryableItemStatuses)})
  AND i."errorCode" IN (${unfundedCodes.map((code) => `'${code}'`).join(', ')}) AND (i.fields -> '$sealed') IS NOT NULL))`;

/**
 * A batch-level outbound event for each batch of `batches` (a CTE with an `id` column), as
 * a select for outboxCte: the rows not sent yet and what they add up to (rowsLeft and
 * amountLeft; rowsToPay and amountToPay are their first names), read in the statement that
 * moved it. `extra` adds or sets fields as `jsonb_build_object` arguments.
 */
export function batchEventSelect(type: EventType, batches: string, extra = ''): string {
  const left = (pick: string) => `(SELECT ${pick} FROM "BatchItem" AS i WHERE i."batchId" = b.id AND ${notSentYet})`;
  const rows = left('count(*)');
  const amount = left('COALESCE(sum(i.amount), 0)::numeric(18, 2)::text');
  const own = typeFields[type];
  return `SELECT ${sqlEventType(type)} AS type, b.id AS "subjectId",
    jsonb_build_object('batchId', b.id, 'name', b.name, 'payAt', ${sqlEventTime('b."payAt"')},
      'rowsLeft', ${rows}, 'amountLeft', ${amount}, 'rowsToPay', ${rows}, 'amountToPay', ${amount},
      'currency', b.currency${own === undefined ? '' : `, ${own}`})${extra === '' ? '' : ` || jsonb_build_object(${extra})`} AS data
  FROM "Batch" AS b JOIN ${batches} AS moved ON moved.id = b.id
  ORDER BY b.id`;
}

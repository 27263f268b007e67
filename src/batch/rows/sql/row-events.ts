import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { sqlEventType, type EventType } from '../../../outbound/index.ts';
import { rowStates } from '../row-states.ts';

const eventOf = (type: EventType) => sqlEventType(type);

/** Rows come to rest as paid, not paid, or for a person to decide: the states that send a row event. */
const restingStates = [rowStates.completed, rowStates.failed, rowStates.expired, rowStates.needsReview] as const;

/**
 * The outbound events (outbound/event-types.ts) of rows a statement moved: `rows` is a CTE of
 * BatchItem columns as they are now (status, line, paymentId, amount, currency, errorCode,
 * errorMessage, fields, batchId); `commission` an SQL expression over it, or NULL. Only the
 * masked recipient travels: the sealed card data is dropped. Every field is in every event, null
 * when it has no value (docs/api/events.md).
 */
export function rowEventsSelect(rows: string, commission: string): string {
  return `SELECT CASE r.status
      WHEN ${sqlName(rowStates.completed)} THEN ${eventOf('batch_row.paid')}
      WHEN ${sqlName(rowStates.needsReview)} THEN ${eventOf('batch_row.needs_review')}
      ELSE ${eventOf('batch_row.failed')} END AS type,
    r."paymentId" AS "subjectId",
    jsonb_build_object(
      'batchId', r."batchId", 'line', r.line, 'paymentId', r."paymentId", 'status', r.status,
      'amount', r.amount::text, 'currency', r.currency, 'commission', (${commission})::text,
      'recipient', r.fields - '$sealed', 'code', r."errorCode", 'message', r."errorMessage") AS data
  FROM ${rows} AS r
  WHERE r.status IN (${sqlList(restingStates)})
  ORDER BY r."batchId", r.line`;
}

import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { sqlEventType, type EventType } from '../../../outbound/index.ts';
import { failedItemStatuses, rowStates } from '../../rows/row-states.ts';
import { batchStates } from '../batch-states.ts';

const endEvents: Array<[string, EventType]> = [
  [batchStates.completed, 'batch.completed'],
  [batchStates.completedWithFailures, 'batch.completed_with_failures'],
  [batchStates.cancelled, 'batch.cancelled'],
];

/**
 * The outbound events of batches a statement ended (`ended`: a CTE of id and status), with
 * the totals a receiver books without calling back: paid, not paid, held, and the
 * commission the partner charged, as decimal strings.
 */
export function batchEndEventsSelect(ended: string): string {
  const sum = (where: string) => `COALESCE(sum(i.amount) FILTER (WHERE ${where}), 0)::numeric(18, 2)::text`;
  const count = (where: string) => `count(*) FILTER (WHERE ${where})`;
  const paid = `i.status = ${sqlName(rowStates.completed)}`;
  const failed = `i.status IN (${sqlList(failedItemStatuses)})`;
  const held = `i.status = ${sqlName(rowStates.duplicate)}`;
  return `SELECT CASE e.status ${endEvents.map(([state, type]) => `WHEN ${sqlName(state)} THEN ${sqlEventType(type)}`).join(' ')} END AS type,
    e.id AS "subjectId",
    jsonb_build_object('batchId', e.id, 'status', e.status, 'totals', (
      SELECT jsonb_build_object(
        'paidRows', ${count(paid)}, 'paidAmount', ${sum(paid)},
        'failedRows', ${count(failed)}, 'failedAmount', ${sum(failed)},
        'heldRows', ${count(held)}, 'heldAmount', ${sum(held)},
        'commission', COALESCE(sum(p.commission) FILTER (WHERE ${paid}), 0)::numeric(18, 2)::text,
        'currency', COALESCE(min(i.currency), 'RUB'))
      FROM "BatchItem" AS i LEFT JOIN "Payment" AS p ON p."paymentId" = i."paymentId" AND ${paid}
      WHERE i."batchId" = e.id)) AS data
  FROM ${ended} AS e
  ORDER BY e.id`;
}

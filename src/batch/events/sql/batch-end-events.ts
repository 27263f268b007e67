import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { sqlEventType, type EventType } from '../../../outbound/index.ts';
import { failedItemStatuses, rowStates } from '../../states/row-states.ts';
import { rowEndEventsSelect } from '../../rows/sql/row-events.ts';
import { batchStates } from '../../states/batch-states.ts';

const endEvents: Array<[string, EventType]> = [
  [batchStates.completed, 'batch.completed'],
  [batchStates.completedWithFailures, 'batch.completed_with_failures'],
  [batchStates.cancelled, 'batch.cancelled'],
];

/** Rows sent and not paid, or left to a person: failedItemStatuses but the cancelled, which are counted apart. */
const notPaidStates = failedItemStatuses.filter((state) => state !== rowStates.cancelled);

/**
 * The outbound events of batches a statement ended (`ended`: a CTE of id and status): first
 * the rows' ends no row move told (rows/sql/row-events.ts rowEndEventsSelect: rows cancelled,
 * rows that failed for funds and were never put back), then the batch's end with the totals
 * a receiver books without calling back: paid, not paid, cancelled, held, and the commission
 * the partner charged, as decimal strings. So each row that was to be paid has told its end
 * before its batch's, and the counts are those of the rows' final events
 * (docs/decisions/0026-final-outcome-events.md).
 */
export function batchEndEventsSelect(ended: string): string {
  const sum = (where: string) => `COALESCE(sum(i.amount) FILTER (WHERE ${where}), 0)::numeric(18, 2)::text`;
  const count = (where: string) => `count(*) FILTER (WHERE ${where})`;
  const paid = `i.status = ${sqlName(rowStates.completed)}`;
  const failed = `i.status IN (${sqlList(notPaidStates)})`;
  const cancelled = `i.status = ${sqlName(rowStates.cancelled)}`;
  const held = `i.status = ${sqlName(rowStates.duplicate)}`;
  const batchEnds = `SELECT e.id AS "batchId", NULL::int AS line,
    CASE e.status ${endEvents.map(([state, type]) => `WHEN ${sqlName(state)} THEN ${sqlEventType(type)}`).join(' ')} END AS type,
    e.id AS "subjectId",
    jsonb_build_object('batchId', e.id, 'status', e.status, 'totals', (
      SELECT jsonb_build_object(
        'paidRows', ${count(paid)}, 'paidAmount', ${sum(paid)},
        'failedRows', ${count(failed)}, 'failedAmount', ${sum(failed)},
        'cancelledRows', ${count(cancelled)}, 'cancelledAmount', ${sum(cancelled)},
        'heldRows', ${count(held)}, 'heldAmount', ${sum(held)},
        'commission', COALESCE(sum(p.commission) FILTER (WHERE ${paid}), 0)::numeric(18, 2)::text,
        'currency', COALESCE(min(i.currency), 'RUB'))
      FROM "BatchItem" AS i LEFT JOIN "Payment" AS p ON p."paymentId" = i."paymentId" AND ${paid}
      WHERE i."batchId" = e.id)) AS data
  FROM ${ended} AS e`;
  // A batch's rows in line order, then its end (NULL sorts last).
  return `SELECT ev.type, ev."subjectId", ev.data FROM (
    ${rowEndEventsSelect(ended)}
    UNION ALL
    ${batchEnds}
  ) AS ev
  ORDER BY ev."batchId", ev.line NULLS LAST`;
}

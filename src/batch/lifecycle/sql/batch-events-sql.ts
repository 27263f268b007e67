import { sqlName } from '../../../db/sql-list.ts';
import { sqlEventType, type EventType } from '../../../outbound/index.ts';
import { rowStates } from '../../rows/row-states.ts';

/**
 * A batch-level outbound event for each batch of `batches` (a CTE with an `id` column), as
 * a select for outboxCte: the rows it has to pay now and what they add up to, read in the
 * statement that moved it. `extra` adds fields as `jsonb_build_object` arguments.
 */
export function batchEventSelect(type: EventType, batches: string, extra = ''): string {
  return `SELECT ${sqlEventType(type)} AS type, b.id AS "subjectId",
    jsonb_strip_nulls(jsonb_build_object('batchId', b.id, 'name', b.name, 'payAt', b."payAt",
      'rowsToPay', (SELECT count(*) FROM "BatchItem" AS i WHERE i."batchId" = b.id AND i.status = ${sqlName(rowStates.pending)}),
      'amountToPay', (SELECT COALESCE(sum(i.amount), 0)::numeric(18, 2)::text FROM "BatchItem" AS i WHERE i."batchId" = b.id AND i.status = ${sqlName(rowStates.pending)}),
      'currency', b.currency${extra === '' ? '' : `, ${extra}`})) AS data
  FROM "Batch" AS b JOIN ${batches} AS moved ON moved.id = b.id
  ORDER BY b.id`;
}

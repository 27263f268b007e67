import type { SqlQuery } from '../../../db/database.ts';
import { outboxCte, type EventType } from '../../../outbound/index.ts';
import { batchEventSelect } from './batch-events-sql.ts';

/**
 * Writes a batch-level outbound event (outbound/event-types.ts) in the caller's transaction,
 * from the batch as that transaction sees it: one statement, committed with the move it
 * reports. `fields` are scalars the receiver needs (who, why); names and amounts come from
 * the batch itself.
 */
export async function recordBatchEvent(
  query: SqlQuery,
  type: EventType,
  batchId: string,
  fields: Record<string, string | number | boolean | null> = {},
): Promise<void> {
  const names = Object.keys(fields);
  const extra = names
    .map(
      (name, i) =>
        `'${name.replace(/[^A-Za-z]/g, '')}', $${i + 2}::${typeof fields[name] === 'number' ? 'numeric' : typeof fields[name] === 'boolean' ? 'boolean' : 'text'}`,
    )
    .join(', ');
  await query(`WITH subject AS (SELECT $1::text AS id), ${outboxCte('batch_event', batchEventSelect(type, 'subject', extra))} SELECT 1`, [
    batchId,
    ...names.map((n) => fields[n]),
  ]);
}

import type { SqlQuery } from '../../db/database.ts';
import type { EventType } from '../event-types.ts';

/**
 * The outbox write: one statement for any number of events, in the caller's transaction.
 * Nothing is written while no subscription exists (the EXISTS reads the table as of this
 * statement): a subscription made later starts after this moment anyway (insert-subscription.ts).
 */
const sql = `
INSERT INTO "OutboundEvent" (type, "subjectId", data)
SELECT e.type, e.subject, e.data
FROM unnest($1::text[], $2::text[], $3::jsonb[]) WITH ORDINALITY AS e(type, subject, data, n)
WHERE EXISTS (SELECT 1 FROM "EventSubscription")
ORDER BY e.n`;

export async function insertEvents(query: SqlQuery, types: string[], subjects: string[], data: string[]): Promise<void> {
  await query(sql, [types, subjects, data]);
}

/**
 * The outbox write as a CTE named `name`, for a statement that makes the change itself (a
 * group of row moves, the batch-ending sweep): the events commit with it, in one statement.
 * `select` yields (type, "subjectId", data) in the order the events happened.
 */
export function outboxCte(name: string, select: string): string {
  return `${name} AS (
  INSERT INTO "OutboundEvent" (type, "subjectId", data)
  SELECT ev.type, ev."subjectId", ev.data FROM (${select}) AS ev
  WHERE EXISTS (SELECT 1 FROM "EventSubscription")
  RETURNING 1
)`;
}

/** An event type as a SQL literal (`'batch.completed'`), from the typed list, for the selects outboxCte takes. */
export function sqlEventType(type: EventType): string {
  if (!/^[a-z_]+\.[a-z_]+$/.test(type)) throw new Error(`sqlEventType: ${JSON.stringify(type)} is not an event type`);
  return `'${type}'`;
}

/**
 * True when the outbox holds an event of one of `types` about `subject` (an SQL expression),
 * for a statement that tells an outcome once whichever path told it first (indexed by subject;
 * events older than EVENT_LOG_RETENTION_DAYS are gone, and with them what they told).
 */
export function toldSql(subject: string, types: readonly EventType[]): string {
  return `EXISTS (SELECT 1 FROM "OutboundEvent" AS told WHERE told."subjectId" = ${subject} AND told.type IN (${types.map(sqlEventType).join(', ')}))`;
}

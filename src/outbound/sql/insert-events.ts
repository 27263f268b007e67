import type { SqlQuery } from '../../db/database.ts';

/**
 * The outbox write: one statement for any number of events, in the caller's transaction.
 * Nothing is written while no subscription exists (the EXISTS reads the table as of this
 * statement): a subscription made later starts after this moment anyway (create-subscription.ts).
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

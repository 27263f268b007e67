import type { SqlQuery } from '../../db/database.ts';

/** Many NOTIFYs in one statement, sent in the order they were queued (WITH ORDINALITY). */
export async function notifyPayloads(query: SqlQuery, channel: string, payloads: string[]): Promise<void> {
  await query(`SELECT pg_notify($1, payload) FROM unnest($2::text[]) WITH ORDINALITY AS p(payload, n) ORDER BY n`, [channel, payloads]);
}

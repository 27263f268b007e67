import type { SqlQuery } from '../../../db/database.ts';

/** An event as a receiver's body is made from it (event-body.ts). */
export interface StoredEvent {
  id: string;
  type: string;
  occurredAt: Date | string;
  data: Record<string, unknown>;
}

export async function readEventById(query: SqlQuery, id: string): Promise<StoredEvent | undefined> {
  const [row] = await query<StoredEvent>(
    `SELECT e.id::text AS id, e.type, e."occurredAt", e.data FROM "OutboundEvent" AS e WHERE e.id = $1::uuid`,
    [id],
  );
  return row;
}

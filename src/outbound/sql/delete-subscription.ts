import type { SqlQuery } from '../../db/database.ts';

export async function deleteSubscription(query: SqlQuery, id: string): Promise<boolean> {
  const rows = await query(`DELETE FROM "EventSubscription" WHERE id = $1::uuid RETURNING id`, [id]);
  return rows.length === 1;
}

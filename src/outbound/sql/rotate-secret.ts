import type { SqlQuery } from '../../db/database.ts';

/** The new secret signs from now; the old one beside it until `overlapMs` has passed. */
export async function rotateSecret(query: SqlQuery, id: string, secret: unknown, overlapMs: number): Promise<Date | undefined> {
  const [row] = await query<{ previousUntil: Date }>(
    `UPDATE "EventSubscription" SET "previousSecret" = secret, secret = $2::jsonb,
       "previousUntil" = now() + $3 * interval '1 millisecond', "updatedAt" = now()
     WHERE id = $1::uuid RETURNING "previousUntil"`,
    [id, JSON.stringify(secret), overlapMs],
  );
  return row?.previousUntil;
}

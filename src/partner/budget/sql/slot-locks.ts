import type pg from 'pg';

/**
 * The deployment's in-flight slots are session advisory locks (classid = the budget's key,
 * objid = the slot, 0..N-1) on one connection per process: a process that dies or loses its
 * connection lets go of its slots with it, with no lease to wait out. Slot N, taken shared,
 * is held by every process that wants slots: how many hold it is how many share the budget.
 */

/** Up to `want` free slots, locked for this session, and how many processes share the budget. */
export async function lockSlots(
  client: pg.Client,
  key: number,
  slots: number,
  want: number,
  joining: boolean,
  held: number[],
): Promise<{ slots: number[]; sharers: number }> {
  const { rows } = await client.query<{ slots: number[]; sharers: number }>(
    `SELECT CASE WHEN $4::boolean THEN pg_try_advisory_lock_shared($1::int, $2::int) END AS wanting,
       -- Locks are re-entrant within a session: the slots this one holds are left out first (OFFSET 0 keeps that before the lock).
       array(SELECT s FROM (SELECT s FROM generate_series(0, $2::int - 1) AS s WHERE s <> ALL($5::int[]) OFFSET 0) AS free
             WHERE pg_try_advisory_lock($1::int, s) LIMIT $3::int) AS slots,
       (SELECT count(DISTINCT pid)::int FROM pg_locks
         WHERE locktype = 'advisory' AND classid = $1::int::oid AND objid = $2::int::oid AND objsubid = 2 AND granted) AS sharers`,
    [key, slots, want, joining, held],
  );
  const row = rows[0]!;
  return { slots: row.slots, sharers: Math.max(1, row.sharers) };
}

/** How many processes want slots now. */
export async function countSharers(client: pg.Client, key: number, slots: number): Promise<number> {
  const { rows } = await client.query<{ sharers: number }>(
    `SELECT count(DISTINCT pid)::int AS sharers FROM pg_locks
      WHERE locktype = 'advisory' AND classid = $1::int::oid AND objid = $2::int::oid AND objsubid = 2 AND granted`,
    [key, slots],
  );
  return Math.max(1, rows[0]?.sharers ?? 1);
}

/** Lets go of `given`; with `leaving`, also of the wanting lock (taken once, when `joining`). */
export async function unlockSlots(client: pg.Client, key: number, slots: number, given: number[], leaving: boolean): Promise<void> {
  await client.query(
    `SELECT (SELECT count(pg_advisory_unlock($1::int, s)) FROM unnest($3::int[]) AS s) AS unlocked,
       CASE WHEN $4::boolean THEN pg_advisory_unlock_shared($1::int, $2::int) END AS left`,
    [key, slots, given, leaving],
  );
}

import type { SqlQuery } from '../../../db/database.ts';

/**
 * `n` send times for the deployment, 1/rate apart, on the database's clock (a generic cell
 * rate: the row holds the next free time; no process's clock decides): the first is the
 * latest of the next free time, now, and the end of a pause. Returned as milliseconds from
 * now, so a process adds them to its own clock.
 */
export async function takeBudgetTimes(query: SqlQuery, agentId: string, n: number, intervalMs: number): Promise<number> {
  const [row] = await query<{ firstInMs: number }>(
    `INSERT INTO "PartnerBudget" AS b ("agentId", "nextAt") VALUES ($1, clock_timestamp() + $2::int * $3::float8 * interval '1 millisecond')
     ON CONFLICT ("agentId") DO UPDATE SET
       "nextAt" = GREATEST(b."nextAt", clock_timestamp(), COALESCE(b."pausedUntil", '-infinity')) + $2::int * $3::float8 * interval '1 millisecond'
     RETURNING (EXTRACT(EPOCH FROM (b."nextAt" - $2::int * $3::float8 * interval '1 millisecond' - clock_timestamp())) * 1000)::float8 AS "firstInMs"`,
    [agentId, n, intervalMs],
  );
  return Math.max(0, row?.firstInMs ?? 0);
}

/** Every process's calls wait until `ms` from now (a 429's Retry-After); send times granted later start after it. */
export async function pauseBudget(query: SqlQuery, agentId: string, ms: number): Promise<void> {
  await query(
    `INSERT INTO "PartnerBudget" AS b ("agentId", "nextAt", "pausedUntil")
     VALUES ($1, clock_timestamp() + $2::float8 * interval '1 millisecond', clock_timestamp() + $2::float8 * interval '1 millisecond')
     ON CONFLICT ("agentId") DO UPDATE SET
       "pausedUntil" = GREATEST(COALESCE(b."pausedUntil", '-infinity'), clock_timestamp() + $2::float8 * interval '1 millisecond')`,
    [agentId, ms],
  );
}

/** What is left of a pause, in milliseconds (0: none): a process that connects late learns of one. */
export async function budgetPauseLeft(query: SqlQuery, agentId: string): Promise<number> {
  const [row] = await query<{ leftMs: number | null }>(
    `SELECT (EXTRACT(EPOCH FROM ("pausedUntil" - clock_timestamp())) * 1000)::float8 AS "leftMs" FROM "PartnerBudget" WHERE "agentId" = $1`,
    [agentId],
  );
  return Math.max(0, row?.leftMs ?? 0);
}

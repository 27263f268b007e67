import type { SqlQuery } from '../../db/database.ts';
import { sqlName } from '../../db/sql-list.ts';
import { runMove, runStates } from '../run-states.ts';

/** The sweep's move (run-states.ts): a run whose lease ran out ends FAILED. */
const abandoned = runMove('abandon');

/**
 * Runs whose process stopped without ending them (their lease ran out) end FAILED, and the
 * masked upstream payments staged by any run that is not running go, in one statement.
 */
const sql = `
WITH failed AS (
  UPDATE "ReconciliationRun" SET status = ${sqlName(abandoned.to)}, "finishedAt" = now(), "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
    error = 'the process running it stopped before it finished; start it again'
  WHERE status = ${sqlName(abandoned.from!)} AND "leaseExpiresAt" < now()
  RETURNING id),
-- The statement sees the runs as they were: the ones just failed are named apart.
dropped AS (DELETE FROM "ReconciliationUpstreamPayment" AS s USING "ReconciliationRun" AS r
  WHERE s."runId" = r.id AND (r.status <> ${sqlName(runStates.running)} OR r.id IN (SELECT id FROM failed)))
SELECT count(*)::int AS count FROM failed`;

/** How many runs it ended. */
export async function failAbandonedRuns(query: SqlQuery): Promise<number> {
  const rows = await query<{ count: number }>(sql, []);
  return rows[0]?.count ?? 0;
}

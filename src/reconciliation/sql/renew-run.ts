import type { SqlQuery } from '../../db/database.ts';
import { sqlName } from '../../db/sql-list.ts';
import { runStates } from '../run-states.ts';

/**
 * A running run's progress, written with its lease pushed out on the database clock (the
 * clock the claim and the sweep compare it with). Only the holder of `leaseToken` writes:
 * once the run was taken over (its lease had expired) or ended, no row comes back.
 */
const sql = `
UPDATE "ReconciliationRun"
SET phase = $3, "windowsRead" = $4, "windowsReread" = $5, "upstreamRequests" = $6,
  "leaseExpiresAt" = now() + $7 * interval '1 millisecond'
WHERE id = $1 AND "leaseOwner" = $2 AND status = ${sqlName(runStates.running)}
RETURNING id`;

export interface RunProgressRow {
  phase: string;
  windowsRead: number;
  windowsReread: number;
  upstreamRequests: number;
}

/** True while `leaseToken` still holds the run. */
export async function renewRun(
  query: SqlQuery,
  runId: string,
  leaseToken: string,
  progress: RunProgressRow,
  leaseMs: number,
): Promise<boolean> {
  const rows = await query(sql, [
    runId,
    leaseToken,
    progress.phase,
    progress.windowsRead,
    progress.windowsReread,
    progress.upstreamRequests,
    leaseMs,
  ]);
  return rows.length > 0;
}

import type { SqlQuery } from '../../db/database.ts';
import { runMove } from '../run-states.ts';
import { sqlName } from '../../db/sql-list.ts';

/** The run-state table's moves this statement makes (run-states.ts). */
const claimed = sqlName(runMove('schedule').to);
const retried = runMove('retry');
const takenOver = runMove('take-over');
// A run retried or taken over starts afresh, as a claimed one.
if (retried.to !== runMove('schedule').to || takenOver.to !== runMove('schedule').to)
  throw new Error("claim-scheduled-run.ts: the table's claims lead to different states");

/**
 * The daily run, claimed in one statement on the database clock: the run is inserted
 * under its unique scheduleKey, and where it exists already it is taken over only when
 * it FAILED more than `retryAfterMs` ago or its lease expired (its process died). With
 * several workers on one database exactly one gets a row back. Taken over, the run starts
 * afresh: its counts are reset here, its old discrepancies deleted by the taker.
 */
const sql = `
INSERT INTO "ReconciliationRun" AS r
  (id, "periodFrom", "periodTo", "timeZone", "startsAt", "endsAt", "stuckAfterMinutes", status, trigger, "requestedBy",
   "scheduleKey", "leaseOwner", "leaseExpiresAt", "windowsTotal", phase, "startedAt")
VALUES ($1, $2, $3, $4, $5, $6, $7, ${claimed}, 'schedule', 'schedule',
   $8, $9, now() + $10 * interval '1 millisecond', $11, 'reading', now())
ON CONFLICT ("scheduleKey") DO UPDATE SET
  status = ${claimed}, "leaseOwner" = EXCLUDED."leaseOwner", "leaseExpiresAt" = EXCLUDED."leaseExpiresAt",
  "stuckAfterMinutes" = EXCLUDED."stuckAfterMinutes", "startedAt" = now(), "finishedAt" = NULL, error = NULL, phase = 'reading',
  "windowsRead" = 0, "windowsReread" = 0, "upstreamRequests" = 0, "discrepancyCount" = 0, "openCount" = 0, "repairedCount" = 0,
  "countsByCode" = NULL
WHERE (r.status = ${sqlName(retried.from!)} AND r."finishedAt" < now() - $12 * interval '1 millisecond')
   OR (r.status = ${sqlName(takenOver.from!)} AND r."leaseExpiresAt" < now())
RETURNING r.id`;

export interface ScheduledRun {
  id: string;
  from: string;
  to: string;
  timeZone: string;
  startsAt: Date;
  endsAt: Date;
  stuckAfterMinutes: number;
  scheduleKey: string;
  /** The claiming execution's lease (run-lease.ts). */
  leaseToken: string;
  leaseMs: number;
  windowsTotal: number;
  retryAfterMs: number;
}

/** The run's id when this process took it, else null (another has it, or it is done). */
export async function claimScheduledRun(query: SqlQuery, run: ScheduledRun): Promise<string | null> {
  const rows = await query<{ id: string }>(sql, [
    run.id,
    run.from,
    run.to,
    run.timeZone,
    run.startsAt,
    run.endsAt,
    run.stuckAfterMinutes,
    run.scheduleKey,
    run.leaseToken,
    run.leaseMs,
    run.windowsTotal,
    run.retryAfterMs,
  ]);
  return rows[0]?.id ?? null;
}

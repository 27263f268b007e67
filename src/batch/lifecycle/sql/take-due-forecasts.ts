import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { batchStates, payingStates } from '../../states/batch-states.ts';

/**
 * Scheduled batches whose forecast is due (forecastAt reached on the database clock), taken
 * by one process: forecastAt is moved `holdMs` ahead in the same statement, so another
 * worker's sweep does not read it too; recordForecast clears it once read.
 */
export async function takeDueForecasts(query: SqlQuery, holdMs: number): Promise<Array<{ id: string; payAt: Date }>> {
  return query(
    `UPDATE "Batch" SET "forecastAt" = now() + $1 * interval '1 millisecond'
     WHERE status = ${sqlName(batchStates.scheduled)} AND "forecastAt" <= now()
     RETURNING id, "payAt"`,
    [holdMs],
  );
}

/** What the forecast found: the shortfall in minor units (null: covered), read now; no further read before release. */
export async function recordForecast(query: SqlQuery, batchId: string, shortfallMinor: bigint | null): Promise<void> {
  await query(`UPDATE "Batch" SET "forecastReadAt" = now(), "forecastShortfall" = $2::numeric / 100, "forecastAt" = NULL WHERE id = $1`, [
    batchId,
    shortfallMinor?.toString() ?? null,
  ]);
}

/**
 * Approval weighs a batch with the batches paying no later than it (funds-check.ts), so an
 * earlier payroll approved after a later one's forecast was read can leave the later one short
 * unseen until its release. Such a forecast is due again now: read at the next sweep, it says
 * the later batch is short (a notice), once per approval that could have changed it.
 */
export async function forecastAgainAfterEarlierApprovals(query: SqlQuery): Promise<void> {
  await query(
    `UPDATE "Batch" AS b SET "forecastAt" = now()
     WHERE b.status = ${sqlName(batchStates.scheduled)} AND b."forecastAt" IS NULL AND b."forecastReadAt" IS NOT NULL
       AND EXISTS (SELECT 1 FROM "Batch" AS o
         WHERE o.id <> b.id AND o."approvedAt" > b."forecastReadAt"
           AND o.status IN (${sqlList([...payingStates, batchStates.paused, batchStates.scheduled])})
           AND (o."payAt" IS NULL OR o."payAt" <= b."payAt"))`,
    [],
  );
}

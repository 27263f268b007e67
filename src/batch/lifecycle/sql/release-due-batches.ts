import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { batchStates, statesFrom } from '../../states/batch-states.ts';
import { outboxCte } from '../../../outbound/index.ts';
import { batchEventSelect } from '../../events/sql/batch-events-sql.ts';

/**
 * Starts every SCHEDULED batch whose payAt the database clock has reached: RUNNING, with
 * startedAt now (the rows' claim wait counts from it). One statement, run by every worker's
 * idle sweep: of workers racing, the row lock lets one update each batch and the others see
 * it no longer SCHEDULED, so a batch is released once; a worker killed around it either
 * committed the statement or did not, and the next sweep of any worker finds it due.
 * The database clock, not the workers': docs/decisions/0021-schedule-release-by-database-clock.md.
 */
const sql = `
WITH released AS (
UPDATE "Batch" SET status = ${sqlName(batchStates.running)}::"BatchStatus", "startedAt" = now(), "forecastAt" = NULL
WHERE status IN (${sqlList(statesFrom('release', batchStates.running))}) AND "payAt" <= now()
RETURNING id
), ${outboxCte('started_events', batchEventSelect('batch.started', 'released', `'by', 'schedule'`))}
SELECT id FROM released`;

/** Returns the batches released now. */
export async function releaseDueBatches(query: SqlQuery): Promise<string[]> {
  const rows = await query<{ id: string }>(sql, []);
  return rows.map((row) => row.id);
}

/** SCHEDULED batches whose payAt the database clock has reached: read before the release, which takes them (above). */
export async function dueScheduledBatches(query: SqlQuery): Promise<string[]> {
  const rows = await query<{ id: string }>(
    `SELECT id FROM "Batch" WHERE status IN (${sqlList(statesFrom('release', batchStates.running))}) AND "payAt" <= now()`,
    [],
  );
  return rows.map((row) => row.id);
}

import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { FUNDS } from '../../funds/sql/funds-reason.ts';
import { batchStates, readOnlyStates, statesFrom, workedStates } from '../../states/batch-states.ts';
import { activeItemStatuses, readWhilePausedStatuses } from '../../states/row-states.ts';

/**
 * When a worker with nothing to claim has something due next, as milliseconds from now on
 * the database's clock (null: nothing is waiting for a time): a row's retry time or a
 * lease's end (claim-items.ts's rows), a scheduled batch's release or forecast
 * (schedule-sweep.ts), a paused batch's funds check. The worker sleeps until then, or until
 * a notice of new work wakes it (docs/decisions/0034-workers-woken-not-polling.md).
 */
const sql = `
SELECT (EXTRACT(EPOCH FROM (LEAST(
  (SELECT min(GREATEST(c."notBefore", c."leaseExpiresAt")) FROM "BatchItem" AS c JOIN "Batch" AS b ON b.id = c."batchId"
    WHERE ((b.status IN (${sqlList(workedStates)}) AND c.status IN (${sqlList(activeItemStatuses)}))
        OR (b.status IN (${sqlList(readOnlyStates)}) AND c.status IN (${sqlList(readWhilePausedStatuses)})))
      AND (c."notBefore" > now() OR c."leaseExpiresAt" > now())),
  (SELECT min("payAt") FROM "Batch" WHERE status IN (${sqlList(statesFrom('release', batchStates.running))})),
  (SELECT min("forecastAt") FROM "Batch" WHERE status = ${sqlName(batchStates.scheduled)}),
  (SELECT min("fundsCheckAt") FROM "Batch" WHERE status = ${sqlName(batchStates.paused)} AND "pauseReason" = ${FUNDS})
) - now())) * 1000)::float8 AS "dueInMs"`;

export async function nextDueInMs(query: SqlQuery): Promise<number | null> {
  const [row] = await query<{ dueInMs: number | null }>(sql, []);
  return row?.dueInMs ?? null;
}

import type { SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import type { BatchEvents } from '../events/batch-events.ts';
import { FUNDS_FIRST_CHECK_MS, type FundsCheck } from './funds-check.ts';
import { stillShort } from './sql/note-shortfall.ts';
import { resumeFunded } from './sql/resume-funded.ts';
import { takeFundsChecks } from './sql/take-funds-checks.ts';

/** A batch paused for funds has its balance read less and less often, up to a minute (first after FUNDS_FIRST_CHECK_MS). */
const FUNDS_MAX_CHECK_MS = 60_000;

/**
 * Batches paused for lack of funds whose check is due (one process takes each): resumed
 * once the balance covers the rows left and their commission, else looked at again later.
 * A worker runs it (batch-worker.ts).
 */
export async function resumeFundedBatches(deps: {
  query: SqlQuery;
  funds: FundsCheck;
  batchEvents: BatchEvents;
  logger: Logger;
}): Promise<void> {
  for (const due of await takeFundsChecks(deps.query, FUNDS_MAX_CHECK_MS)) {
    const pausedMs = Date.now() - due.pausedAt.getTime();
    const next = Math.min(FUNDS_MAX_CHECK_MS, Math.max(FUNDS_FIRST_CHECK_MS, Math.round(pausedMs / 4)));
    try {
      const picture = await deps.funds.forResume(due.id);
      if (picture.shortfallMinor > 0n) {
        await stillShort(deps.query, due.id, picture.shortfallMinor, next);
        // The shortfall as now read, to the batch's page and its subscribers.
        deps.batchEvents.publish(due.id);
        continue;
      }
      if (await resumeFunded(deps.query, due.id)) {
        deps.logger.info({ batchId: due.id }, 'batch resumed: the balance covers the rows left');
        deps.batchEvents.publish(due.id);
      }
    } catch (error) {
      deps.logger.warn({ err: error, batchId: due.id }, 'could not read the balance for a batch paused for funds; trying again later');
      await stillShort(deps.query, due.id, null, next);
    }
  }
}

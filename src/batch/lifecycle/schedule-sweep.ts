import type { SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { insertAuditEvent } from '../../audit/sql/insert-audit-event.ts';
import { systemActor } from '../../audit/audit.ts';
import { fromMinorUnits } from '../../money/money.ts';
import type { FundsCheck } from '../funds/funds-check.ts';
import { FUNDS_FIRST_CHECK_MS } from '../funds/funds-check.ts';
import { stillShort } from '../funds/sql/note-shortfall.ts';
import { pauseForFunds } from '../funds/sql/pause-for-funds.ts';
import { dueScheduledBatches, releaseDueBatches } from './sql/release-due-batches.ts';
import { forecastAgainAfterEarlierApprovals, recordForecast, takeDueForecasts } from './sql/take-due-forecasts.ts';

/** A forecast that could not be read (the partner down) is tried again after this. */
const FORECAST_RETRY_MS = 60_000;

/**
 * What a worker's idle sweep does for scheduled batches: release the due ones (one
 * statement, sql/release-due-batches.ts) and pause for funds those the balance does not cover
 * (as a running batch meeting INSUFFICIENT_FUNDS is; resumed by itself once the balance covers
 * it), then read the balance against each scheduled batch whose lead time has come, or that a
 * batch paying before it was approved after its forecast was read (short: recorded on the
 * batch, audited as batch.forecast-short, logged; a notice, not a failure). Returns the
 * batches changed, for their subscribers.
 *
 * The balance is read before the release, and a short batch is released and paused in one
 * transaction (`inTransaction`, the runtime's): no other worker sees it running, so nothing
 * of it is sent. Reading after the release let a worker elsewhere claim its rows during the
 * partner call.
 */
export async function sweepSchedule(deps: {
  query: SqlQuery;
  funds?: FundsCheck | undefined;
  logger: Logger;
  /** Runs `work` in one database transaction; without it (tests) the release and its pause are two statements. */
  inTransaction?: (<T>(work: (query: SqlQuery) => Promise<T>) => Promise<T>) | undefined;
}): Promise<string[]> {
  const funds = deps.funds;
  if (funds === undefined) return releaseDueBatches(deps.query);
  // The batches due now weighed together, as each was once all of them ran: short, they all pause.
  const shortfalls = new Map<string, bigint>();
  const due = await dueScheduledBatches(deps.query);
  if (due.length > 0) {
    try {
      const picture = await funds.forRelease(due);
      if (picture.shortfallMinor > 0n) for (const batchId of due) shortfalls.set(batchId, picture.shortfallMinor);
    } catch (error) {
      // Unread, they run: a short balance then pauses them at the partner's first INSUFFICIENT_FUNDS.
      deps.logger.warn(
        { err: error, batchIds: due },
        'could not read the balance for scheduled batches at their release; they run, and pause if the money runs out',
      );
    }
  }
  const inTransaction = deps.inTransaction ?? ((work) => work(deps.query));
  const { released, paused } = await inTransaction(async (query) => {
    const released = await releaseDueBatches(query);
    const short = released.filter((batchId) => shortfalls.has(batchId));
    const paused = short.length === 0 ? [] : await pauseForFunds(query, short, FUNDS_FIRST_CHECK_MS);
    // The shortfall on the batch at once, for its page; the funds check resumes it (batch-worker.ts).
    for (const batchId of paused) await stillShort(query, batchId, shortfalls.get(batchId)!, FUNDS_FIRST_CHECK_MS);
    return { released, paused };
  });
  for (const batchId of released) deps.logger.info({ batchId }, 'scheduled batch released: its time has come');
  for (const batchId of paused) await short(deps, batchId, shortfalls.get(batchId)!, 'release');
  const changed = [...released];
  await forecastAgainAfterEarlierApprovals(deps.query);
  for (const due of await takeDueForecasts(deps.query, FORECAST_RETRY_MS)) {
    try {
      const picture = await funds.forSchedule(due.id, due.payAt);
      const shortfall = picture.shortfallMinor > 0n ? picture.shortfallMinor : null;
      await recordForecast(deps.query, due.id, shortfall);
      if (shortfall !== null) await short(deps, due.id, shortfall, 'forecast');
      changed.push(due.id);
    } catch (error) {
      deps.logger.warn({ err: error, batchId: due.id }, 'could not read the balance for a scheduled batch’s forecast; trying again later');
    }
  }
  return changed;
}

async function short(
  deps: { query: SqlQuery; logger: Logger },
  batchId: string,
  shortfallMinor: bigint,
  when: 'forecast' | 'release',
): Promise<void> {
  const shortfall = fromMinorUnits(shortfallMinor);
  deps.logger.warn({ batchId, shortfall, when }, 'scheduled batch: the balance does not cover it and the batches paying before it');
  await insertAuditEvent(deps.query, systemActor, { action: 'batch.forecast-short', batchId, detail: { shortfall, when } });
}

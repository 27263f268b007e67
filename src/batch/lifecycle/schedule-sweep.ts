import type { SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { insertAuditEvent } from '../../audit/sql/insert-audit-event.ts';
import { systemActor } from '../../audit/audit.ts';
import { fromMinorUnits } from '../../money/money.ts';
import type { FundsCheck } from '../pay/funds-check.ts';
import { FUNDS_FIRST_CHECK_MS } from '../pay/row-writes.ts';
import { pauseForFunds, stillShort } from '../pay/sql/funds.ts';
import { releaseDueBatches } from './sql/release-due-batches.ts';
import { forecastAgainAfterEarlierApprovals, recordForecast, takeDueForecasts } from './sql/take-due-forecasts.ts';

/** A forecast that could not be read (the partner down) is tried again after this. */
const FORECAST_RETRY_MS = 60_000;

/**
 * What a worker's idle sweep does for scheduled batches: release the due ones (one
 * statement, sql/release-due-batches.ts), then read the balance against each batch just
 * released (short: paused for funds, as a running batch meeting INSUFFICIENT_FUNDS is, and
 * resumed by itself once the balance covers it) and against each scheduled batch whose lead
 * time has come, or that a batch paying before it was approved after its forecast was read
 * (short: recorded on the batch, audited as batch.forecast-short, logged; a notice, not a
 * failure). Returns the batches changed, for their subscribers.
 */
export async function sweepSchedule(deps: { query: SqlQuery; funds?: FundsCheck | undefined; logger: Logger }): Promise<string[]> {
  const released = await releaseDueBatches(deps.query);
  const funds = deps.funds;
  if (funds === undefined) return released;
  const changed = [...released];
  for (const batchId of released) {
    deps.logger.info({ batchId }, 'scheduled batch released: its time has come');
    try {
      const picture = await funds.forResume(batchId);
      if (picture.shortfallMinor > 0n && (await pauseForFunds(deps.query, [batchId], FUNDS_FIRST_CHECK_MS)).length > 0) {
        // The shortfall on the batch at once, for its page; the funds check resumes it (batch-worker.ts).
        await stillShort(deps.query, batchId, picture.shortfallMinor, FUNDS_FIRST_CHECK_MS);
        await short(deps, batchId, picture.shortfallMinor, 'release');
      }
    } catch (error) {
      // Unread, it runs: a short balance then pauses it at the partner's first INSUFFICIENT_FUNDS.
      deps.logger.warn({ err: error, batchId }, 'could not read the balance for a scheduled batch at its release; it runs, and pauses if the money runs out');
    }
  }
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

async function short(deps: { query: SqlQuery; logger: Logger }, batchId: string, shortfallMinor: bigint, when: 'forecast' | 'release'): Promise<void> {
  const shortfall = fromMinorUnits(shortfallMinor);
  deps.logger.warn({ batchId, shortfall, when }, 'scheduled batch: the balance does not cover it and the batches paying before it');
  await insertAuditEvent(deps.query, systemActor, { action: 'batch.forecast-short', batchId, detail: { shortfall, when } });
}

import type { SqlQuery } from '../../db/database.ts';
import { BatchItemStatus, type BatchStatus } from '../../db/generated/enums.ts';
import { signedToMinorUnits } from '../../money/money.ts';
import type { PayoutClient } from '../../payout/client.ts';
import { batchStates, payingStates } from '../states/batch-states.ts';
import { waitingStatus } from '../states/row-states.ts';
import type { CommissionTariffs } from '../../config/commission-tariffs.ts';
import { tariffParams, type TariffParams } from './sql/commission-estimate.ts';
import { fundsNeed } from './sql/sum-funds-need.ts';

/** What batches need against what the partner says is available, in minor units. */
/** A batch paused for funds has its balance read this soon first, then less often (up to a minute). */
export const FUNDS_FIRST_CHECK_MS = 2_000;

export interface FundsPicture {
  availableMinor: bigint;
  amountMinor: bigint;
  commissionMinor: bigint;
  /** Positive when the balance does not cover the need. */
  shortfallMinor: bigint;
}

/**
 * The balance against what approved batches still need (docs/decisions/0011-partner-trouble-is-not-the-rows-failure.md): the rows whose money
 * has not left yet, with their commission at each provider's tariff, configured or learned
 * from what the partner charged lately (sql/commission-estimate.ts,
 * docs/decisions/0019-commission-estimate.md), for every batch paying now or paused, plus
 * the batch being approved.
 */
export class FundsCheck {
  private readonly tariffs: TariffParams;

  constructor(
    private readonly deps: { query: SqlQuery; client: Pick<PayoutClient, 'getBalance'> },
    commission: {
      /** COMMISSION_TARIFFS: tariffs the contract states, by provider; they win over history. */
      tariffs: CommissionTariffs;
      /** For a provider whose rate is neither configured nor seen, in percent ("2", "1.5"). */
      defaultPercent: string;
    },
  ) {
    this.tariffs = tariffParams(commission.tariffs, commission.defaultPercent);
  }

  /**
   * For an approval of `batchId`: the rows it starts, with every batch already approved that
   * pays before it (paying now, paused, or scheduled no later than its payAt).
   */
  async forApproval(batchId: string, includeHeld: boolean, payAt: Date | null = null): Promise<FundsPicture> {
    return this.picture({
      batchIds: [],
      starting: { batchId, statuses: startingStatuses(includeHeld) },
      withPaying: [...payingStates, batchStates.paused],
      scheduledUntil: payAt,
    });
  }

  /**
   * For a scheduled batch, ahead of its time (the lead-time forecast, lifecycle/schedule-sweep.ts):
   * its rows, with every batch paying now or paused and every batch scheduled no later.
   */
  async forSchedule(batchId: string, payAt: Date): Promise<FundsPicture> {
    return this.picture({ batchIds: [batchId], withPaying: [...payingStates, batchStates.paused], scheduledUntil: payAt });
  }

  /**
   * About what the partner will charge for the rows an approval of `batchId` would start, at
   * the same tariffs, for a confirmation to quote ("plus about N RUB commission"). No balance read.
   */
  async commissionOf(batchId: string, includeHeld: boolean): Promise<bigint> {
    const need = await fundsNeed(this.deps.query, {
      batchIds: [],
      withPaying: false,
      payingStates: [],
      starting: { batchId, statuses: startingStatuses(includeHeld) },
      tariffs: this.tariffs,
    });
    return need.commissionMinor;
  }

  /**
   * For scheduled batches whose time has come, read just before they are released: their rows
   * together, with every batch paying now (what forResume of each reads once they all run).
   */
  async forRelease(batchIds: string[]): Promise<FundsPicture> {
    return this.picture({ batchIds, withPaying: payingStates });
  }

  /** For a batch paused for funds: its rows left, with every batch paying now. */
  async forResume(batchId: string): Promise<FundsPicture> {
    return this.picture({ batchIds: [batchId], withPaying: payingStates });
  }

  private async picture(need: {
    batchIds: string[];
    withPaying: readonly BatchStatus[];
    starting?: { batchId: string; statuses: readonly string[] };
    scheduledUntil?: Date | null;
  }): Promise<FundsPicture> {
    const balance = await this.deps.client.getBalance();
    const availableMinor = signedToMinorUnits(balance.available.value);
    const { amountMinor, commissionMinor } = await fundsNeed(this.deps.query, {
      batchIds: need.batchIds,
      withPaying: true,
      payingStates: need.withPaying,
      ...(need.starting === undefined ? {} : { starting: need.starting }),
      scheduledUntil: need.scheduledUntil ?? null,
      tariffs: this.tariffs,
    });
    const shortfall = amountMinor + commissionMinor - availableMinor;
    return { availableMinor, amountMinor, commissionMinor, shortfallMinor: shortfall > 0n ? shortfall : 0n };
  }
}

/** The rows an approval starts: PENDING, and those held as duplicates when it includes them. */
function startingStatuses(includeHeld: boolean): string[] {
  return includeHeld ? [waitingStatus, BatchItemStatus.DUPLICATE] : [waitingStatus];
}

import type { PrismaClient } from '../../db/database.ts';
import type { Batch, PartnerBreaker } from '../../db/generated/client.ts';
import { amountInWords } from '../../money/money-text.ts';
import { decimalText } from '../../money/money-wire.ts';
import { reasonText, breakerStates } from '../../partner/breaker-states.ts';
import { unsentItemStatuses } from '../states/row-states.ts';
import { batchStates, pauseReasons, payingStates } from '../states/batch-states.ts';

/** Why an approved batch sends nothing now. */
export const waitReasons = ['PERSON', 'FUNDS', 'PARTNER_UNREACHABLE', 'PARTNER_THROTTLED', 'PARTNER_FAILING'] as const;
/**
 * PARTNER_RETRYING: the breaker is closed, but the batch's last calls failed and its rows
 * wait for their retry (issue 38: a small batch sat "Paying" for minutes while the breaker
 * needed 12 failed calls to open). Not among the gauge's reasons: a row's retry is its own.
 */
export type WaitReason = (typeof waitReasons)[number] | 'PARTNER_RETRYING';

/** A batch's rows that wait for a retry after a failed call (readRetryingRows). */
export interface RetryingRows {
  rows: number;
  /** The earliest of their last failures. */
  since: Date | null;
  /** When the first of them is due again. */
  nextTryAt: Date | null;
  /** The latest failure, in the partner's or the gateway's words. */
  lastError: string | null;
}

export interface BatchWait {
  reason: WaitReason;
  since: Date | null;
  /** PERSON: who paused it. */
  by: string | null;
  /** FUNDS: what was missing when the balance was last read, as "1234.50". */
  shortfall: string | null;
  /**
   * When the gateway looks again by itself (FUNDS: the balance read; PARTNER_*: the breaker's
   * next probe); null when only a person ends the wait. Kept out of `waitingFor`: a time
   * written into words goes stale and is in no reader's time zone.
   */
  nextCheckAt: Date | null;
  /** What it waits for, in words for a person. */
  waitingFor: string;
}

type Waiting = Pick<Batch, 'status' | 'pauseReason' | 'pausedAt' | 'pausedBy' | 'shortfall' | 'fundsCheckAt'>;
type Breaker = Pick<PartnerBreaker, 'state' | 'reason' | 'openedAt' | 'nextProbeAt'> | null;

/**
 * A paused batch's reason, or a running batch held by the partner breaker (docs/decisions/0011-partner-trouble-is-not-the-rows-failure.md);
 * null for a batch that is not waiting. One place for GraphQL, the page and the CLI.
 */
export function waitOf(batch: Waiting, breaker: Breaker, retrying: RetryingRows | null = null): BatchWait | null {
  if (batch.status === batchStates.paused && batch.pauseReason === pauseReasons.funds) {
    // Words for a person (page and CLI alike); the figures themselves are in shortfall and nextCheckAt.
    const short = batch.shortfall === null ? 'not enough money' : `${amountInWords(batch.shortfall, 'RUB')} short`;
    const next = batch.fundsCheckAt === null ? '' : ', read again by itself';
    return {
      reason: 'FUNDS',
      since: batch.pausedAt,
      by: null,
      shortfall: decimalText(batch.shortfall),
      nextCheckAt: batch.fundsCheckAt,
      waitingFor: `the balance to cover the rows left and their commission (${short}${next}), or a person to resume it`,
    };
  }
  if (batch.status === batchStates.paused) {
    return {
      reason: 'PERSON',
      since: batch.pausedAt,
      by: batch.pausedBy,
      shortfall: null,
      nextCheckAt: null,
      waitingFor: 'a person to resume it',
    };
  }
  if (payingStates.includes(batch.status) && breaker !== null && breaker.state === breakerStates.open) {
    const reason = breaker.reason ?? 'UNREACHABLE';
    return {
      reason: `PARTNER_${reason}`,
      since: breaker.openedAt,
      by: null,
      shortfall: null,
      nextCheckAt: breaker.nextProbeAt,
      waitingFor:
        reason === 'THROTTLED'
          ? // Probed by one row's payment, not a balance read (docs/decisions/0025-throttle-a-throttled-row-rests.md).
            'the Payout API to take payments again (it asks to slow down); one payment at a time tries it, and the batch goes on by itself'
          : `the Payout API, ${reasonText[reason]}, to answer again; it is probed and goes on by itself`,
    };
  }
  if (payingStates.includes(batch.status) && retrying !== null && retrying.rows > 0) {
    const rows = retrying.rows === 1 ? '1 row is' : `${retrying.rows} rows are`;
    return {
      reason: 'PARTNER_RETRYING',
      since: retrying.since,
      by: null,
      shortfall: null,
      nextCheckAt: retrying.nextTryAt,
      waitingFor: `the Payout API to answer: ${rows} tried again by themselves${retrying.lastError === null ? '' : ` (last: ${retrying.lastError})`}`,
    };
  }
  return null;
}

/**
 * The rows of a paying batch that wait for a retry: not sent or not settled yet, and their
 * last call failed (a row's errorCode is cleared by its next move). Only asked while the
 * breaker is closed: an open breaker says more.
 */
export async function readRetryingRows(prisma: Pick<PrismaClient, 'batchItem'>, batchId: string): Promise<RetryingRows | null> {
  const where = { batchId, status: { in: [...unsentItemStatuses] }, errorCode: { not: null } };
  const [tally, latest] = await Promise.all([
    prisma.batchItem.aggregate({ where, _count: { _all: true }, _min: { updatedAt: true, notBefore: true } }),
    prisma.batchItem.findFirst({ where, orderBy: { updatedAt: 'desc' }, select: { errorMessage: true, errorCode: true } }),
  ]);
  if (tally._count._all === 0) return null;
  return {
    rows: tally._count._all,
    since: tally._min.updatedAt,
    nextTryAt: tally._min.notBefore,
    lastError: latest?.errorMessage ?? latest?.errorCode ?? null,
  };
}

/** The partner breaker while it is open (null while closed): what waitOf needs of it. */
export function readOpenBreaker(prisma: Pick<PrismaClient, 'partnerBreaker'>): Promise<Breaker> {
  return prisma.partnerBreaker.findFirst({ where: { state: breakerStates.open } });
}

/** waitOf with the breaker read now. */
export async function waitingNow(prisma: Pick<PrismaClient, 'partnerBreaker'>, batch: Waiting): Promise<BatchWait | null> {
  return waitOf(batch, await readOpenBreaker(prisma));
}

import type { PrismaClient } from '../../db/database.ts';
import type { Batch, PartnerBreaker } from '../../db/generated/client.ts';
import { amountInWords, utcTimeOn } from '../../money/readable-text.ts';
import { reasonText, breakerStates } from '../../partner/breaker-states.ts';
import { batchStates, pauseReasons, payingStates } from './batch-states.ts';

/** Why an approved batch sends nothing now. */
export const waitReasons = ['PERSON', 'FUNDS', 'PARTNER_UNREACHABLE', 'PARTNER_THROTTLED', 'PARTNER_FAILING'] as const;
export type WaitReason = (typeof waitReasons)[number];

export interface BatchWait {
  reason: WaitReason;
  since: Date | null;
  /** PERSON: who paused it. */
  by: string | null;
  /** FUNDS: what was missing when the balance was last read, as "1234.50". */
  shortfall: string | null;
  /** What it waits for, in words for a person. */
  waitingFor: string;
}

type Waiting = Pick<Batch, 'status' | 'pauseReason' | 'pausedAt' | 'pausedBy' | 'shortfall' | 'fundsCheckAt'>;
type Breaker = Pick<PartnerBreaker, 'state' | 'reason' | 'openedAt' | 'nextProbeAt'> | null;

/**
 * A paused batch's reason, or a running batch held by the partner breaker (docs/decisions/0011-partner-trouble-is-not-the-rows-failure.md);
 * null for a batch that is not waiting. One place for GraphQL, the page and the CLI.
 */
export function waitOf(batch: Waiting, breaker: Breaker): BatchWait | null {
  if (batch.status === batchStates.paused && batch.pauseReason === pauseReasons.funds) {
    // Words for a person (page and CLI alike); the figures themselves are in shortfall and the Money/DateTime fields.
    const short = batch.shortfall === null ? 'not enough money' : `${amountInWords(batch.shortfall.toFixed(2), 'RUB')} short`;
    const next = batch.fundsCheckAt === null ? '' : `, read again at ${utcTimeOn(batch.fundsCheckAt)}`;
    return {
      reason: 'FUNDS',
      since: batch.pausedAt,
      by: null,
      shortfall: batch.shortfall?.toFixed(2) ?? null,
      waitingFor: `the balance to cover the rows left and their commission (${short}${next}), or a person to resume it`,
    };
  }
  if (batch.status === batchStates.paused) {
    return { reason: 'PERSON', since: batch.pausedAt, by: batch.pausedBy, shortfall: null, waitingFor: 'a person to resume it' };
  }
  if (payingStates.includes(batch.status) && breaker !== null && breaker.state === breakerStates.open) {
    const reason = breaker.reason ?? 'UNREACHABLE';
    const next = breaker.nextProbeAt === null ? '' : ` (next probe at ${utcTimeOn(breaker.nextProbeAt)})`;
    return {
      reason: `PARTNER_${reason}`,
      since: breaker.openedAt,
      by: null,
      shortfall: null,
      waitingFor: `the Payout API, ${reasonText[reason]}, to answer again${next}; it goes on by itself`,
    };
  }
  return null;
}

/** The partner breaker while it is open (null while closed): what waitOf needs of it. */
export function readOpenBreaker(prisma: Pick<PrismaClient, 'partnerBreaker'>): Promise<Breaker> {
  return prisma.partnerBreaker.findFirst({ where: { state: breakerStates.open } });
}

/** waitOf with the breaker read now. */
export async function waitingNow(prisma: Pick<PrismaClient, 'partnerBreaker'>, batch: Waiting): Promise<BatchWait | null> {
  return waitOf(batch, await readOpenBreaker(prisma));
}

import type { BreakerReason, BreakerState } from '../db/generated/enums.ts';
import type { CallOutcome } from '../payout/client.ts';

/**
 * The partner breaker (docs/decisions/0011-partner-trouble-is-not-the-rows-failure.md): trouble of the whole partner is not the failure of each
 * row. One row per agent in "PartnerBreaker", shared by every process through the database.
 *
 * | from   | event                                              | to     | effect                                     |
 * |--------|----------------------------------------------------|--------|--------------------------------------------|
 * | CLOSED | `troubleCalls` calls in a row ended in trouble,    | OPEN   | nothing is claimed; every call but the     |
 * |        | over at least `troublePaths` different paths       |        | probe is refused before it is sent         |
 * | OPEN   | the probe (one balance read, one process at a      | OPEN   | the next probe waits twice as long (up to  |
 * |        | time) ends in trouble                              |        | `probeMaxMs`), and at least Retry-After    |
 * | OPEN   | the probe is answered (any Error object counts)    | CLOSED | claims and calls go on; rows that rested   |
 * |        |                                                    |        | are read back or sent from their state     |
 *
 * Trouble is what says nothing about one payment: no answer (connection refused or cut, a
 * timeout), a 429, a 5xx or an answer that is not what the spec promises. An Error object
 * with a 4xx status is an answer: the partner is there and decided.
 */
export const breakerStates = { closed: 'CLOSED', open: 'OPEN' } as const satisfies Record<string, BreakerState>;

/** The reason a trouble outcome opens the breaker with; null for an answer. */
export function troubleOf(outcome: CallOutcome): BreakerReason | null {
  switch (outcome) {
    case 'ok':
    case 'refused':
    case 'aborted':
      return null;
    case 'throttled':
      return 'THROTTLED';
    case 'server-error':
    case 'bad-response':
      return 'FAILING';
    case 'timeout':
    case 'network-error':
      return 'UNREACHABLE';
  }
}

/** How a person reads each reason, in messages and on the page. */
export const reasonText: Record<BreakerReason, string> = {
  UNREACHABLE: 'unreachable',
  THROTTLED: 'throttling (429 Too Many Requests)',
  FAILING: 'failing (5xx answers)',
};

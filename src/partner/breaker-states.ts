import type { BreakerReason, BreakerState } from '../db/generated/enums.ts';
import type { CallOutcome } from '../payout/call-hooks.ts';
import { PayoutApiError, PayoutResponseError } from '../payout/errors.ts';

/**
 * The partner breaker (docs/decisions/0011-partner-trouble-is-not-the-rows-failure.md): trouble of the whole partner is not the failure of each
 * row. One row per agent in "PartnerBreaker", shared by every process through the database.
 * Its moves are the table below (breakerTransitions); partner-breaker.ts and the statements
 * under sql/ (open-breaker.ts, take-probe.ts, close-breaker.ts) take their states from it.
 *
 * Trouble is what says nothing about one payment: no answer (connection refused or cut, a
 * timeout), a 429, a 5xx or an answer that is not what the spec promises. An Error object
 * with a 4xx status is an answer: the partner is there and decided. troubleOf is the one
 * classification, for the calls the breaker watches and for its probe alike.
 */
export type BreakerEvent =
  /** partner-breaker.ts onCall: `troubleCalls` calls of one kind (sends or reads) in a row ended in trouble, over at least `troublePaths` paths. */
  | 'trouble'
  /** partner-breaker.ts probe: the probe (one process at a time: a balance read, or while throttled one row\'s send) ends in trouble. */
  | 'probe-trouble'
  /** partner-breaker.ts probe: the probe is answered (any Error object that is not trouble counts). */
  | 'probe-answered';

export interface BreakerTransition {
  from: BreakerState;
  to: BreakerState;
  on: BreakerEvent;
  when: string;
  effect: string;
}

// prettier-ignore
export const breakerTransitions: readonly BreakerTransition[] = [
  { from: 'CLOSED', to: 'OPEN',   on: 'trouble',        when: '`troubleCalls` calls of one kind in a row (sends: create, execute; or reads) ended in trouble, over at least `troublePaths` different paths', effect: 'nothing is claimed but the probe\'s row; every call but the probe is refused before it is sent' },
  { from: 'OPEN',   to: 'OPEN',   on: 'probe-trouble',  when: 'the probe (one process at a time: a balance read, or while throttled one row\'s send) ends in trouble', effect: 'the next probe waits twice as long (up to `probeMaxMs`), and at least Retry-After' },
  { from: 'OPEN',   to: 'CLOSED', on: 'probe-answered', when: 'the probe is answered (any Error object counts)', effect: 'claims and calls go on; rows that rested are read back or sent from their state' },
];

/** The one transition `on` takes. */
export function breakerMove(on: BreakerEvent): BreakerTransition {
  const found = breakerTransitions.filter((t) => t.on === on);
  if (found.length !== 1) throw new Error(`breaker-states.ts: ${found.length} transitions on ${on}`);
  return found[0]!;
}

/** Named states the code and its SQL refer to: the states of the table's moves. */
export const breakerStates = {
  closed: breakerMove('probe-answered').to as 'CLOSED',
  open: breakerMove('trouble').to as 'OPEN',
} as const satisfies Record<string, BreakerState>;

/**
 * The reason each outcome of a call (payout/client.ts) opens the breaker with; null for an
 * answer, or a call this process gave up (aborted), which says nothing of the partner.
 */
export const troubleByOutcome: Readonly<Record<CallOutcome, BreakerReason | null>> = {
  ok: null,
  refused: null,
  aborted: null,
  throttled: 'THROTTLED',
  'server-error': 'FAILING',
  'bad-response': 'FAILING',
  timeout: 'UNREACHABLE',
  'network-error': 'UNREACHABLE',
};

/** The reason a trouble outcome opens the breaker with; null for an answer. */
export function troubleOf(outcome: CallOutcome): BreakerReason | null {
  return troubleByOutcome[outcome];
}

/**
 * What a failed probe says, through the same table: its error taken as the call's outcome
 * (as the client reports it to onCall). Null when it was answered after all (a 4xx Error
 * object); an error that is no Payout error at all is taken as no answer.
 */
export function probeTrouble(error: unknown): BreakerReason | null {
  return troubleOf(probeOutcome(error));
}

function probeOutcome(error: unknown): CallOutcome {
  if (error instanceof PayoutApiError) return error.httpStatus === 429 ? 'throttled' : error.httpStatus >= 500 ? 'server-error' : 'refused';
  if (error instanceof PayoutResponseError) return 'bad-response';
  return 'network-error';
}

/** How a person reads each reason, in messages and on the page. */
export const reasonText: Record<BreakerReason, string> = {
  UNREACHABLE: 'unreachable',
  THROTTLED: 'throttling (429 Too Many Requests)',
  FAILING: 'failing (5xx answers)',
};

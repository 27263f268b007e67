import type { TrackedStatus } from '../db/generated/enums.ts';

/**
 * Where a tracked payment's status may go next. Upstream statuses only move forward, so a
 * late or repeated webhook can never take a payment back; the local states (PENDING: sent,
 * not confirmed; REJECTED: refused at create; UNKNOWN: an answer was lost) give way to
 * anything the upstream reports. Every write of a payment record goes through
 * payment-records.ts, which applies this table: compareMove for one payment under a row
 * lock, allowedMoves as SQL for the batch worker's grouped writes (sql/apply-facts.ts).
 *
 * | from \ to   | REJECTED | UNKNOWN | CREATED | READY | IN_PROGRESS | final |
 * |-------------|----------|---------|---------|-------|-------------|-------|
 * | PENDING     | yes      | yes     | yes     | yes   | yes         | yes   |
 * | REJECTED    |          | yes     | yes     | yes   | yes         | yes   |
 * | UNKNOWN     |          |         | yes     | yes   | yes         | yes   |
 * | CREATED     |          | yes     |         | yes   | yes         | yes   |
 * | READY       |          | yes     |         |       | yes         | yes   |
 * | IN_PROGRESS |          |         |         |       |             | yes   |
 * | final       |          |         |         |       |             |       |
 *
 * UNKNOWN never follows IN_PROGRESS: the payment is known to be executing, and a lost
 * answer about it does not undo that. REJECTED never follows UNKNOWN: an earlier send may
 * have created the payment, so a later refusal proves nothing about it.
 */
const next: Record<TrackedStatus, readonly TrackedStatus[]> = {
  PENDING: ['REJECTED', 'UNKNOWN', 'CREATED', 'READY', 'IN_PROGRESS', 'EXPIRED', 'FAILED', 'COMPLETED'],
  REJECTED: ['UNKNOWN', 'CREATED', 'READY', 'IN_PROGRESS', 'EXPIRED', 'FAILED', 'COMPLETED'],
  UNKNOWN: ['CREATED', 'READY', 'IN_PROGRESS', 'EXPIRED', 'FAILED', 'COMPLETED'],
  CREATED: ['UNKNOWN', 'READY', 'IN_PROGRESS', 'EXPIRED', 'FAILED', 'COMPLETED'],
  READY: ['UNKNOWN', 'IN_PROGRESS', 'EXPIRED', 'FAILED', 'COMPLETED'],
  IN_PROGRESS: ['EXPIRED', 'FAILED', 'COMPLETED'],
  EXPIRED: [],
  FAILED: [],
  COMPLETED: [],
};

/**
 * Named statuses the code refers to, so that no status name is typed twice (as
 * batch/states/batch-states.ts's batchStates): each is a row of the table above.
 */
export const paymentStates = {
  /** Recorded before its create is sent; not confirmed. */
  pending: 'PENDING',
  /** Its create was refused (nothing exists upstream): local only. */
  rejected: 'REJECTED',
  /** An answer about it was lost: local only, settled by a read-back. */
  unknown: 'UNKNOWN',
  created: 'CREATED',
  ready: 'READY',
  inProgress: 'IN_PROGRESS',
  expired: 'EXPIRED',
  failed: 'FAILED',
  completed: 'COMPLETED',
} as const satisfies Record<string, TrackedStatus>;

/** What the gateway records of a payment when the upstream reported nothing: a refused create, a lost answer. */
export type LocalOutcome = typeof paymentStates.rejected | typeof paymentStates.unknown;

export const finalTracked: ReadonlySet<TrackedStatus> = new Set(['EXPIRED', 'FAILED', 'COMPLETED']);
export const localOnly: ReadonlySet<TrackedStatus> = new Set(['PENDING', 'REJECTED', 'UNKNOWN']);

export type Move = 'advance' | 'same' | 'stale';

export function compareMove(current: TrackedStatus, to: TrackedStatus): Move {
  if (current === to) return 'same';
  return next[current].includes(to) ? 'advance' : 'stale';
}

/** Every allowed (from, to) pair, for writers that apply the table in SQL. */
export const allowedMoves: ReadonlyArray<readonly [TrackedStatus, TrackedStatus]> = Object.entries(next).flatMap(([from, tos]) =>
  tos.map((to) => [from as TrackedStatus, to] as const),
);

/** Statuses the read-back (read-back.ts) reads again until they settle. */
export const needsReadBack: ReadonlySet<TrackedStatus> = new Set(['IN_PROGRESS', 'UNKNOWN']);

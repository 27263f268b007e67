import type { TrackedStatus } from '../db/generated/enums.ts';

/**
 * Order in which a payment's status may move. Upstream statuses only move forward, so a
 * late or repeated webhook can never take a payment back; the local states (not yet
 * confirmed, refused, unknown) give way to anything the upstream reports.
 */
const rank: Record<TrackedStatus, number> = {
  PENDING: 0,
  REJECTED: 0,
  UNKNOWN: 0,
  CREATED: 1,
  READY: 2,
  IN_PROGRESS: 3,
  EXPIRED: 4,
  FAILED: 4,
  COMPLETED: 4,
};

export const finalTracked: ReadonlySet<TrackedStatus> = new Set(['EXPIRED', 'FAILED', 'COMPLETED']);
export const localOnly: ReadonlySet<TrackedStatus> = new Set(['PENDING', 'REJECTED', 'UNKNOWN']);

export type Move = 'advance' | 'same' | 'stale';

export function compareMove(current: TrackedStatus, next: TrackedStatus): Move {
  if (current === next) return 'same';
  if (finalTracked.has(current)) return 'stale';
  // Losing track of an outcome can happen at any point before a final status.
  if (next === 'UNKNOWN') return 'advance';
  if (localOnly.has(current) && localOnly.has(next)) return 'advance';
  return rank[next] > rank[current] ? 'advance' : 'stale';
}

/** Statuses the reconciler reads back until they settle. */
export const needsReconciling: ReadonlySet<TrackedStatus> = new Set(['IN_PROGRESS', 'UNKNOWN']);

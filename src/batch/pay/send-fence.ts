import type { SqlQuery } from '../../db/database.ts';
import type { SendFence } from '../../payout/call-hooks.ts';
import { SendWithheldError } from '../../payout/errors.ts';
import { maySend } from '../rows/sql/may-send.ts';

/** What a row's fence reads: its lease token and when its lease ends by this process's clocks. */
export interface FencedRow {
  id: string;
  leaseToken: string;
  /** performance.now() by which the lease ends here: taken before the statement that claimed or renewed it, so never later than the database's. */
  leaseEndsAt: number;
  /**
   * The same by Date.now(). The monotonic clock stands still while a virtual machine is paused
   * or migrated, and the database's runs on; the wall clock is stepped forward once the host
   * syncs it. Either clock saying the lease has ended withholds the send.
   */
  leaseEndsAtWall: number;
}

/** Both clocks a lease is measured by, read before the statement that claims or renews it. */
export interface LeaseClocks {
  monotonic: number;
  wall: number;
}

export function leaseClocks(): LeaseClocks {
  return { monotonic: performance.now(), wall: Date.now() };
}

/**
 * Sends stop this long before the lease ends by the worker's own clock: the time between the
 * fence's answer and the request leaving, and the two clocks' drift (decision 0027).
 */
export function sendMarginMs(leaseMs: number): number {
  return Math.min(Math.floor(leaseMs / 4), 5_000);
}

/**
 * A batch worker's fence for one row (decision 0027): no create or execute leaves once the
 * row's lease has ended by this process's clock (a process frozen past its lease, then woken,
 * sends nothing: another worker may hold the row, and a cancel may have been acknowledged
 * since), and a send that no durable write has just allowed asks the database first whether
 * the lease still holds and the batch still pays.
 */
export function rowFence(row: FencedRow, query: SqlQuery, marginMs: number): SendFence {
  const ended = () => new SendWithheldError("this worker's lease on the row has ended");
  const over = () => performance.now() >= row.leaseEndsAt - marginMs || Date.now() >= row.leaseEndsAtWall - marginMs;
  return {
    refusal: () => (over() ? ended() : undefined),
    confirm: async () => {
      if (over()) return ended();
      try {
        return (await maySend(query, row))
          ? undefined
          : new SendWithheldError('the row is no longer this worker’s, or its batch no longer pays');
      } catch {
        // Unconfirmed is not allowed: the row rests as it is and is read back later.
        return new SendWithheldError('the database could not confirm that the row may still be sent');
      }
    },
  };
}

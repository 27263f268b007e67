import { backoffDelay, sleep, type BackoffOptions } from '../lib/retry.ts';
import type { Logger } from '../log/logger.ts';
import { isConnectionLost } from './connection-lost.ts';
import type { PrismaClient } from './generated/client.ts';

/** Attempts of one interactive transaction, the first included. */
const ATTEMPTS = 3;
/**
 * Waits between them (lib/retry.ts): a moment for the pool to open new connections after a
 * failover or a burst of terminations, jittered so the transactions that lost their
 * connections together do not come back together; the floor keeps it a moment, not none.
 */
export const TRANSACTION_BACKOFF: BackoffOptions = { baseMs: 50, maxMs: 1_000, floorMs: 10 };

/**
 * Every interactive transaction of the process (`prisma.$transaction(async (tx) => …)`: an
 * approval, a cancel, a review, a webhook's status) is run again when its connection was
 * lost before it could commit: before its callback began (BEGIN failed), or with the callback
 * itself failing on the lost connection. The server rolled such a transaction back, so running
 * it again is the same as running it once. A connection lost after the callback returned may
 * have taken the COMMIT with it: that is not repeated, and the caller refuses with a clear,
 * retryable error (docs/decisions/0018-database-connections-end.md). Done here, once,
 * so every owner of a table keeps writing through `$transaction` as before.
 */
export function retryLostTransactions(prisma: PrismaClient, logger: Logger | undefined): void {
  const run = prisma.$transaction.bind(prisma) as (arg: unknown, options?: unknown) => Promise<unknown>;
  const retrying = async (arg: unknown, options?: unknown): Promise<unknown> => {
    if (typeof arg !== 'function') return run(arg, options);
    const body = arg as (tx: unknown) => Promise<unknown>;
    for (let attempt = 1; ; attempt++) {
      let returned = false;
      let lostInside = false;
      try {
        return await run(async (tx: unknown) => {
          try {
            const value = await body(tx);
            returned = true;
            return value;
          } catch (error) {
            lostInside = isConnectionLost(error);
            throw error;
          }
        }, options);
      } catch (error) {
        const rolledBack = !returned && (lostInside || isConnectionLost(error));
        if (!rolledBack || attempt >= ATTEMPTS) throw error;
        logger?.warn(
          { attempt, err: { message: (error as Error).message } },
          'transaction run again: its database connection was lost before it committed',
        );
        await sleep(backoffDelay(attempt - 1, TRANSACTION_BACKOFF));
      }
    }
  };
  (prisma as unknown as { $transaction: typeof retrying }).$transaction = retrying;
}

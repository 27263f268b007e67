import { type BatchWait, payingStates, readOpenBreaker, readRetryingRows, waitOf } from '../../../batch/index.ts';
import type { GraphQLContext } from '../../context.ts';

/**
 * How long one read of the partner breaker serves a request: every batch of a query asks
 * at about the same moment, and a subscription (one context for its whole life, events at
 * most 4 a second) must read it again for each event, or it never sees the breaker open.
 */
const BREAKER_READ_SERVES_MS = 100;

type BreakerRead = Promise<Parameters<typeof waitOf>[1]>;
const breakerOfRequest = new WeakMap<GraphQLContext, { read: BreakerRead; at: number }>();
function breakerOf(context: GraphQLContext): BreakerRead {
  const kept = breakerOfRequest.get(context);
  if (kept !== undefined && Date.now() - kept.at < BREAKER_READ_SERVES_MS) return kept.read;
  const read = readOpenBreaker(context.services.prisma);
  breakerOfRequest.set(context, { read, at: Date.now() });
  return read;
}

/** The batch's wait, for the fields that depend on it (waiting, secondsLeft). */
export async function waitingOf(batch: Parameters<typeof waitOf>[0] & { id: string }, context: GraphQLContext): Promise<BatchWait | null> {
  const breaker = await breakerOf(context);
  const wait = waitOf(batch, breaker);
  // With the breaker closed, a paying batch whose rows wait for a retry says so from the first one (issue 38).
  if (wait !== null || !payingStates.includes(batch.status)) return wait;
  return waitOf(batch, breaker, await retryingOf(batch.id, context));
}

/** One read of a batch's retrying rows per request and batch (waiting and secondsLeft both ask). */
const retryingOfRequest = new WeakMap<GraphQLContext, Map<string, { read: ReturnType<typeof readRetryingRows>; at: number }>>();
function retryingOf(batchId: string, context: GraphQLContext): ReturnType<typeof readRetryingRows> {
  let reads = retryingOfRequest.get(context);
  if (reads === undefined) retryingOfRequest.set(context, (reads = new Map()));
  const kept = reads.get(batchId);
  if (kept !== undefined && Date.now() - kept.at < BREAKER_READ_SERVES_MS) return kept.read;
  const read = readRetryingRows(context.services.prisma, batchId);
  reads.set(batchId, { read, at: Date.now() });
  return read;
}

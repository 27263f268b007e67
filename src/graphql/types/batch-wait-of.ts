import { readOpenBreaker, waitOf, type BatchWait } from '../../batch/batch-waiting.ts';
import type { GraphQLContext } from '../context.ts';

/** The partner breaker, read once per request however many batches ask. */
const breakerOfRequest = new WeakMap<GraphQLContext, Promise<Parameters<typeof waitOf>[1]>>();
function breakerOf(context: GraphQLContext): Promise<Parameters<typeof waitOf>[1]> {
  let read = breakerOfRequest.get(context);
  if (read === undefined) {
    read = readOpenBreaker(context.services.prisma);
    breakerOfRequest.set(context, read);
  }
  return read;
}

/** The batch's wait, for the fields that depend on it (waiting, secondsLeft). */
export async function waitingOf(batch: Parameters<typeof waitOf>[0], context: GraphQLContext): Promise<BatchWait | null> {
  return waitOf(batch, await breakerOf(context));
}


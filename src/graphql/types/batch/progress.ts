import { batchStates, restingStates, type BatchProgress } from '../../../batch/index.ts';
import type { Batch as BatchRow } from '../../../db/generated/client.ts';
import { followState } from '../../../events/subscription.ts';
import { builder } from '../../builder.ts';
import type { GraphQLContext } from '../../context.ts';
import { Batch } from './batch.ts';
import { BatchItemStatusEnum } from './item.ts';
import { waitingOf } from './wait-of.ts';

/*
 * How far a batch's run has come: its rows per status, its pace and time left, and the
 * batchProgress subscription that sends the batch again as its rows change.
 */

const StatusCount = builder.objectRef<BatchProgress['counts'][number]>('BatchStatusCount').implement({
  description: 'How many rows of a batch are in one status, and their sum.',
  fields: (t) => ({
    status: t.field({ type: BatchItemStatusEnum, description: 'The status counted.', resolve: (c) => c.status }),
    count: t.exposeInt('count', { description: 'Rows in it.' }),
    amount: t.field({ type: 'Decimal', description: 'Their amounts added up, in the batch’s currency.', resolve: (c) => c.amount }),
  }),
});

/**
 * Progress is computed once per loaded batch row, however many of its fields are asked
 * for; each subscription event loads the row afresh, so it never sees stale counts.
 */
const progressCache = new WeakMap<BatchRow, Promise<BatchProgress>>();
export function progressOf(batch: BatchRow, context: GraphQLContext): Promise<BatchProgress> {
  let progress = progressCache.get(batch);
  if (progress === undefined) {
    progress = context.services.batches.progress(batch);
    progressCache.set(batch, progress);
  }
  return progress;
}

builder.objectFields(Batch, (t) => ({
  counts: t.field({
    type: [StatusCount],
    description: 'Rows and their amounts per status.',
    resolve: async (b, _args, context) => (await progressOf(b, context)).counts,
  }),
  throughput: t.float({
    nullable: true,
    description: 'Rows finished per second since the run started.',
    resolve: async (b, _args, context) => (await progressOf(b, context)).throughput,
  }),
  secondsLeft: t.float({
    nullable: true,
    description: 'Estimated seconds until every row is finished, at the pace of the last minute; null while the batch waits (see waiting).',
    resolve: async (b, _args, context) => ((await waitingOf(b, context)) === null ? (await progressOf(b, context)).secondsLeft : null),
  }),
}));

/** At most this often per subscriber, however fast rows finish. */
const PROGRESS_INTERVAL_MS = 250;

builder.subscriptionFields((t) => ({
  batchProgress: t.field({
    type: Batch,
    description: 'The batch now, then again whenever its rows change (at most 4 times a second); ends once the batch is finished.',
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    // Events from any process (src/events) only prompt a read: what is sent is the batch as
    // read, and the stream ends once a finished batch has been sent. A cancelled batch is
    // finished once its payments in flight have settled (finishedAt).
    subscribe: (_root, { id }, { services }) =>
      followState(services.batchEvents.subscribe(String(id)), {
        read: () => services.prisma.batch.findUnique({ where: { id: String(id) } }),
        isFinal: (batch) =>
          batch === null || restingStates.includes(batch.status) || (batch.status === batchStates.cancelled && batch.finishedAt !== null),
        intervalMs: PROGRESS_INTERVAL_MS,
        until: services.shutdown,
      }),
    resolve: async (batch, { id }, { services }) => batch ?? services.prisma.batch.findUniqueOrThrow({ where: { id: String(id) } }),
  }),
}));

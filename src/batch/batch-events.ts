import { createPubSub, map, pipe, type PubSub } from 'graphql-yoga';

type Topics = { batch: [batchId: string, batchId: string] };

/**
 * Notices that a batch's state or counts may have changed, for batchProgress
 * subscriptions, as a yoga pubsub: in this process only without an event target (PGlite),
 * across every gateway and worker process with the PostgreSQL one.
 */
export class BatchEvents {
  private readonly pubsub: PubSub<Topics>;

  constructor(eventTarget?: EventTarget) {
    this.pubsub = createPubSub<Topics>(eventTarget === undefined ? {} : { eventTarget: eventTarget as never });
  }

  publish(batchId: string): void {
    this.pubsub.publish('batch', batchId, batchId);
  }

  subscribe(batchId: string): AsyncIterableIterator<string> {
    // A null detail is the event target's "you may have missed events": still this batch.
    return pipe(
      this.pubsub.subscribe('batch', batchId),
      map((id: string | null) => id ?? batchId),
    );
  }
}

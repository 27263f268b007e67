import { createPubSub, map, pipe, Repeater, SlidingBuffer, type PubSub } from 'graphql-yoga';

/** Events kept per subscriber that has not read them yet. */
const SUBSCRIBER_BACKLOG = 1_024;

const EVERYONE = 'every-batch';

type Topics = { batch: [batchId: string, batchId: string]; work: [batchId: string] };

/**
 * Notices that a batch's state or counts may have changed, for batchProgress
 * subscriptions, as a yoga pubsub: in this process only without an event target (PGlite),
 * across every gateway and worker process with the PostgreSQL one.
 */
export class BatchEvents {
  private readonly pubsub: PubSub<Topics>;
  private readonly everyone = new EventTarget();

  constructor(eventTarget?: EventTarget) {
    this.pubsub = createPubSub<Topics>({
      ...(eventTarget === undefined ? {} : { eventTarget: eventTarget as never }),
      // Without a buffer a subscriber more than 1,024 events behind makes publish throw (in a
      // worker publishing a large group at once). Subscribers read the state again on any
      // event, so dropping the oldest of a backlog loses nothing they need.
      repeaterBuffer: new SlidingBuffer(SUBSCRIBER_BACKLOG),
    });
  }

  publish(batchId: string): void {
    this.pubsub.publish('batch', batchId, batchId);
  }

  /**
   * A person's (or the partner's) change that may bring a worker rows to pay or read back: an
   * approval, a resume, a retry, a rescheduled release, rows settled by a webhook. Every
   * worker, in every process, is woken (decision 0034); the batch's subscribers are told too.
   */
  workArrived(batchId: string): void {
    this.publish(batchId);
    this.pubsub.publish('work', batchId);
  }

  /** Calls `listener` at each workArrived, in this process or (PostgreSQL) any other; returns the way to stop. */
  onWork(listener: (batchId: string | null) => void): () => void {
    const work = this.pubsub.subscribe('work');
    void (async () => {
      for await (const batchId of work) listener(batchId);
    })();
    return () => void work.return?.();
  }

  /**
   * Every subscriber of this process reads its batch again: something every batch's state
   * depends on changed (the partner breaker opened or closed, so each running batch now
   * waits, or goes on). Each process hears of that itself, so it is not sent to the others.
   */
  publishToAll(): void {
    this.everyone.dispatchEvent(new Event(EVERYONE));
  }

  subscribe(batchId: string): AsyncIterableIterator<string> {
    // A null detail is the event target's "you may have missed events": still this batch.
    const own = pipe(
      this.pubsub.subscribe('batch', batchId),
      map((id: string | null) => id ?? batchId),
    );
    const everyone = new Repeater<string>(async (push, stop) => {
      const listener = () => void push(batchId);
      this.everyone.addEventListener(EVERYONE, listener);
      await stop;
      this.everyone.removeEventListener(EVERYONE, listener);
    }, new SlidingBuffer(1));
    return Repeater.merge([own, everyone]);
  }
}

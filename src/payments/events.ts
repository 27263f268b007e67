import { createPubSub, map, pipe, SlidingBuffer, type PubSub } from 'graphql-yoga';

export interface PaymentChanged {
  paymentId: string;
  /** The status written, or `resync` when events may have been missed (read the payment again). */
  status: string;
}

/** Events kept per subscriber that has not read them yet. */
const SUBSCRIBER_BACKLOG = 1_024;

type Topics = { payment: [paymentId: string, change: PaymentChanged] };

/**
 * Payment status changes for GraphQL subscriptions, as a yoga pubsub. Without an event
 * target they stay in this process (PGlite: one process); with the PostgreSQL event target
 * (src/events/pg-event-target.ts) a change published by any gateway or worker reaches
 * subscribers in every process on the same database.
 */
export class PaymentEvents {
  private readonly pubsub: PubSub<Topics>;

  constructor(eventTarget?: EventTarget) {
    this.pubsub = createPubSub<Topics>({
      ...(eventTarget === undefined ? {} : { eventTarget: eventTarget as never }),
      // Without a buffer a subscriber more than 1,024 events behind makes publish throw (in a
      // worker publishing a large group at once). Subscribers read the state again on any
      // event, so dropping the oldest of a backlog loses nothing they need.
      repeaterBuffer: new SlidingBuffer(SUBSCRIBER_BACKLOG),
    });
  }

  publish(change: PaymentChanged): void {
    // Only what subscribers need: the NOTIFY payload stays small.
    this.pubsub.publish('payment', change.paymentId, { paymentId: change.paymentId, status: change.status });
  }

  subscribe(paymentId: string): AsyncIterableIterator<PaymentChanged> {
    // A null detail is the event target's "you may have missed events".
    return pipe(
      this.pubsub.subscribe('payment', paymentId),
      map((change: PaymentChanged | null) => change ?? { paymentId, status: 'resync' }),
    );
  }
}

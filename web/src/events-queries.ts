/** The Events page's operations (operations.graphql) and the shapes they return (schema.graphql). */

export {
  EventTypesDocument as EVENT_TYPES,
  EventSubscriptionsDocument as EVENT_SUBSCRIPTIONS,
  EventDeliveriesDocument as EVENT_DELIVERIES,
  CreateEventSubscriptionDocument as CREATE_EVENT_SUBSCRIPTION,
  UpdateEventSubscriptionDocument as UPDATE_EVENT_SUBSCRIPTION,
  RotateEventSubscriptionSecretDocument as ROTATE_EVENT_SECRET,
  DeleteEventSubscriptionDocument as DELETE_EVENT_SUBSCRIPTION,
  ReplayEventsDocument as REPLAY_EVENTS,
  ResendEventDocument as RESEND_EVENT,
} from './gql/graphql.ts';
import type { EventSubscriptionOffReason } from './gql/graphql.ts';

export interface EventType {
  name: string;
  description: string;
}

export interface EventSubscription {
  id: string;
  url: string;
  types: string[];
  description: string;
  enabled: boolean;
  /** 1: one event per request; more: lists of up to this many. */
  eventsPerRequest: number;
  /** `failing` (turned off by the deliverer), or `turned off by <who>`: offReason and offBy say it as data. */
  disabledReason: string | null;
  /** Why it is off (the gateway's vocabulary, outbound/subscription-states.ts); null while on. */
  offReason: EventSubscriptionOffReason | null;
  /** Who turned it off, for PERSON. */
  offBy: string | null;
  disabledAt: string | null;
  /** Since when the event at its head has failed; null while deliveries succeed. */
  failingSince: string | null;
  nextAttemptAt: string;
  /** Events of its types not yet delivered. */
  backlog: number;
  oldestUndeliveredAt: string | null;
  /** After a rotation: until when the old secret still signs beside the new one. */
  previousSecretValidUntil: string | null;
  createdAt: string;
  createdBy: string;
}

export interface DeliveryAttempt {
  eventId: string;
  eventType: string;
  /** The subscription's sequence number, a bigint as a decimal string. */
  sequence: string;
  /** 1 for the first attempt; 0 for a resend. */
  attempt: number;
  at: string;
  /** delivered, failed, timeout, redirect, refused-target, unreachable. */
  outcome: string;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  resend: boolean;
}

/** A refusal of the event subscription mutations (EventSubscriptionError). */
export interface EventRefusal {
  __typename: 'EventSubscriptionError';
  code: string;
  message: string;
}

/** A mutation's typed result: its data, or the refusal. */
export type EventResult<T> = ({ __typename: string } & T) | EventRefusal;

export function refused<T>(result: EventResult<T>): result is EventRefusal {
  return result.__typename === 'EventSubscriptionError';
}

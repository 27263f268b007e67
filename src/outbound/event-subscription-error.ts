import { GatewayError, type ErrorKind } from '../lib/gateway-error.ts';

/** Why an admin's request about event subscriptions was refused: stable codes (docs/api/error-codes.md). */
export const eventSubscriptionErrorMeanings = {
  EVENT_SUBSCRIPTION_NOT_FOUND: 'No event subscription has this id.',
  EVENT_ENDPOINT_REFUSED:
    'The endpoint URL breaks the rules for receivers: https, a public address (EVENTS_ALLOW_LOCAL_ENDPOINTS allows loopback for development).',
  EVENT_TYPE_UNKNOWN: 'A named event type does not exist (eventTypes lists them).',
  EVENT_REQUEST_SIZE_INVALID: 'eventsPerRequest is not a whole number from 1 to 100.',
  EVENT_NOT_FOUND:
    'No event or list has this id, or it was never sent to this subscription (it will be, in its order), or longer ago than the delivery log keeps.',
} as const;

export type EventSubscriptionErrorCode = keyof typeof eventSubscriptionErrorMeanings;

/** The codes that name something that is not there; the rest refuse what the admin asked for. */
const notFound: ReadonlySet<EventSubscriptionErrorCode> = new Set(['EVENT_SUBSCRIPTION_NOT_FOUND', 'EVENT_NOT_FOUND']);

export class EventSubscriptionError extends GatewayError {
  readonly kind: ErrorKind;
  constructor(
    readonly code: EventSubscriptionErrorCode,
    message: string,
  ) {
    super(message);
    this.kind = notFound.has(code) ? 'not-found' : 'input';
    this.name = 'EventSubscriptionError';
  }
}

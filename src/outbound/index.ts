/** The outbound events room's face: what the runtime, GraphQL, the CLI and other rooms use. */
export { recordEvents, type NewEvent } from './record-events.ts';
export { outboxCte, sqlEventType, toldSql } from './sql/insert-events.ts';
export {
  eventTypes,
  eventTypeDescription,
  eventTypeNames,
  isEventType,
  outcomeEvents,
  type EventType,
  type BatchTotals,
} from './event-types.ts';
export { EventSubscriptions, type NewSubscription } from './event-subscriptions.ts';
export { MAX_EVENTS_PER_REQUEST } from './outbound-settings.ts';
export { EventSubscriptionError, eventSubscriptionErrorMeanings, type EventSubscriptionErrorCode } from './event-subscription-error.ts';
export { EventDeliverer, type DeliveryObserver } from './delivery/event-deliverer.ts';
export { EventSender, type DeliveryResult } from './delivery/send-event.ts';
export { outboundSettings, type OutboundSettings } from './outbound-settings.ts';
export { undeliveredBySubscription } from './sql/read-oldest-undelivered.ts';
export type { SubscriptionRow } from './sql/read-subscriptions.ts';
export type { AttemptRow } from './delivery/sql/list-attempts.ts';

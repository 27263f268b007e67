import type { SqlQuery } from '../db/database.ts';
import type { Attempt } from './delivery/sql/attempt-columns.ts';
import { readEventById, type StoredEvent } from './delivery/sql/read-event.ts';
import { sentRun } from './delivery/sql/read-sent-run.ts';
import { sentSequence } from './delivery/sql/read-sent-sequence.ts';
import { eventBody, eventListBody } from './event-body.ts';
import { EventSubscriptionError } from './event-subscription-error.ts';

/** A request to send again: its webhook-id, its body, and the events it holds for the log. */
export interface ResendRequest {
  id: string;
  body: string;
  events: Array<Pick<Attempt, 'eventId' | 'eventType' | 'sequence'>>;
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const EVENT_ID = new RegExp(`^${UUID}$`, 'i');
/** eventListBody's webhook-id: the first event's id and how many the list held. */
const LIST_ID = new RegExp(`^list_(${UUID})_(\\d{1,3})$`, 'i');

/**
 * What resendEvent sends for the id an admin gives: an event's id sends that event; the
 * webhook-id of a list (what a receiver taking lists has, docs/api/events.md) sends that list
 * again, the same events with the same ids and sequence numbers under the same webhook-id, so a
 * receiver that kept it drops it and one that lost it takes it whole. Anything never sent to
 * this subscription, or sent longer ago than the delivery log keeps, is EVENT_NOT_FOUND.
 */
export async function resendRequest(query: SqlQuery, subscriptionId: string, id: string): Promise<ResendRequest> {
  const list = LIST_ID.exec(id);
  if (list !== null) return listRequest(query, subscriptionId, id, list[1]!, Number(list[2]));
  if (!EVENT_ID.test(id))
    throw notFound(`${id.slice(0, 64)} is neither an event's id nor a list's webhook-id (list_<first event id>_<count>)`);
  const sequence = await sentSequence(query, subscriptionId, id);
  const event = sequence === undefined ? undefined : await readEventById(query, id);
  if (sequence === undefined || event === undefined)
    throw notFound(`event ${id} was never sent to this subscription: undelivered events go out in their order`);
  return {
    id: event.id,
    body: eventBody(event, sequence),
    events: [{ eventId: event.id, eventType: event.type, sequence: Number(sequence) }],
  };
}

async function listRequest(query: SqlQuery, subscriptionId: string, id: string, firstId: string, count: number): Promise<ResendRequest> {
  const from = count < 1 ? undefined : await sentSequence(query, subscriptionId, firstId);
  if (from === undefined)
    throw notFound(
      `list ${id}: its first event ${firstId} was never sent to this subscription${count < 1 ? ' in a list of that size' : ''}`,
    );
  const run = await sentRun(query, subscriptionId, from, count);
  const events = await Promise.all(
    run.map(async (sent) => ({ event: await readEventById(query, sent.eventId), sequence: Number(sent.sequence) })),
  );
  const kept = events.filter((e): e is { event: StoredEvent; sequence: number } => e.event !== undefined);
  if (kept.length < count) {
    throw notFound(
      `list ${id} held ${count} events from sequence ${from}; the delivery log has ${kept.length} of them (sent later, or past EVENT_LOG_RETENTION_DAYS)`,
    );
  }
  const message = eventListBody(kept, new Date());
  return {
    id: message.id,
    body: message.body,
    events: kept.map((e) => ({ eventId: e.event.id, eventType: e.event.type, sequence: e.sequence })),
  };
}

function notFound(why: string): EventSubscriptionError {
  return new EventSubscriptionError('EVENT_NOT_FOUND', why);
}

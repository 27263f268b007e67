import type { StoredEvent } from './delivery/sql/read-event.ts';

/**
 * The JSON a receiver gets, in the shape Standard Webhooks suggests (type, timestamp, data)
 * with the event's id (also webhook-id) and the subscription's sequence number, which rises
 * by one with each event delivered to it: a gap or a step back tells a receiver it missed
 * one or is being sent one again.
 */
export function eventBody(event: StoredEvent, sequence: number | string): string {
  return JSON.stringify(eventObject(event, sequence));
}

function eventObject(event: StoredEvent, sequence: number | string) {
  return {
    id: event.id,
    type: event.type,
    timestamp: new Date(event.occurredAt).toISOString(),
    sequence: Number(sequence),
    data: event.data,
  };
}

/** The type of a request that carries several events (a subscription's eventsPerRequest above 1). */
export const EVENT_LIST_TYPE = 'event.list';

/**
 * Several events in one request, for a subscription whose receiver takes lists: each as
 * eventBody gives it, in order. The webhook-id names the first event and how many follow, so
 * the same list sent again has the same id and a list made up differently (more events had
 * committed by the retry) has another; receivers drop repeats by each event's own id.
 */
export function eventListBody(events: ReadonlyArray<{ event: StoredEvent; sequence: number }>, now: Date): { id: string; body: string } {
  const first = events[0];
  if (first === undefined) throw new Error('eventListBody: no events');
  const id = `list_${first.event.id}_${events.length}`;
  const body = JSON.stringify({
    id,
    type: EVENT_LIST_TYPE,
    timestamp: now.toISOString(),
    events: events.map((e) => eventObject(e.event, e.sequence)),
  });
  return { id, body };
}

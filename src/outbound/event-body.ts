import type { StoredEvent } from './delivery/sql/window-writes.ts';

/**
 * The JSON a receiver gets, in the shape Standard Webhooks suggests (type, timestamp, data)
 * with the event's id (also webhook-id) and the subscription's sequence number, which rises
 * by one with each event delivered to it: a gap or a step back tells a receiver it missed
 * one or is being sent one again.
 */
export function eventBody(event: StoredEvent, sequence: number | string): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: new Date(event.occurredAt).toISOString(),
    sequence: Number(sequence),
    data: event.data,
  });
}

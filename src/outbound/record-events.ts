import type { SqlQuery } from '../db/database.ts';
import type { EventType } from './event-types.ts';
import { insertEvents } from './sql/insert-events.ts';

export interface NewEvent {
  type: EventType;
  /** The batch, payment or run the event is about. */
  subjectId: string;
  data: Record<string, unknown>;
}

/**
 * Writes events into the outbox with the query of the transaction that makes the change they
 * report (docs/decisions/0022-outbound-events.md): committed with it, or not at all. The only
 * writer of OutboundEvent; delivery is the workers' (delivery/event-deliverer.ts).
 */
export async function recordEvents(query: SqlQuery, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await insertEvents(
    query,
    events.map((e) => e.type),
    events.map((e) => e.subjectId),
    events.map((e) => JSON.stringify(e.data)),
  );
}

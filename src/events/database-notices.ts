import type { Database } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { EVENTS_CHANNEL } from './pg-event-target.ts';

/**
 * The notices PGlite's own statements send (a trigger's NOTIFY at its commit, such as
 * "outbound-events"), as events of their topic on an EventTarget: what the PostgreSQL event
 * target (pg-event-target.ts) gives every process, for the one process PGlite has.
 */
export async function pgliteNotices(db: Pick<Database, 'listen'>, logger: Logger): Promise<EventTarget & { close(): Promise<void> }> {
  const target = new EventTarget();
  const unlisten = await db.listen!(EVENTS_CHANNEL, (payload) => {
    try {
      const wire = JSON.parse(payload) as { t: string; d?: unknown };
      target.dispatchEvent(new CustomEvent(wire.t, { detail: wire.d ?? null }));
    } catch {
      logger.warn({ channel: EVENTS_CHANNEL }, 'unreadable notice ignored');
    }
  });
  return Object.assign(target, { close: unlisten });
}

import { randomBytes } from 'node:crypto';
import type { SqlQuery } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { backoffDelay } from '../lib/retry.ts';
import { PgListener, reconnectBackoff } from './pg-listener.ts';
import { notifyPayloads } from './sql/notify-payloads.ts';

/** Every process of one deployment shares the database, so one channel name is enough. */
export const EVENTS_CHANNEL = 'payout_gateway_events';

/** PostgreSQL refuses payloads of 8000 bytes or more; ours are ids and a status, far below. */
const MAX_PAYLOAD_BYTES = 7_500;
/** NOTIFYs sent in one statement. */
const FLUSH_SIZE = 500;
/** Held while the database does not answer; the oldest go first (subscribers re-read state anyway). */
const MAX_QUEUED = 10_000;

/** An EventTarget that other processes' events reach too, and that must be closed. */
export interface SharedEventTarget extends EventTarget {
  close(): Promise<void>;
}

export interface PgEventTargetOptions {
  connectionString: string;
  /** Runs the NOTIFY statements: the application's pool, no connection of its own. */
  query: SqlQuery;
  logger: Logger;
  channel?: string;
}

interface Wire {
  /** The process that sent it: it delivered the event to its own subscribers already. */
  o: string;
  /** The topic, such as `batch:<id>` or `payment:<id>`. */
  t: string;
  d?: unknown;
}

type Callback = (event: Event) => void;

/**
 * A yoga pubsub event target over PostgreSQL LISTEN/NOTIFY, shaped like
 * @graphql-yoga/redis-event-target: `createPubSub({ eventTarget })` publishes through
 * dispatchEvent and subscribes through addEventListener.
 *
 * dispatchEvent reaches this process's subscribers at once (so a dropped listener
 * connection never stops local events) and NOTIFYs the others, grouped per tick into one
 * statement. Notifications from this process are skipped on arrival. Whenever the listener
 * (re)connects, every topic with subscribers here gets an event with a null detail: what was
 * sent while it was away is lost, and subscribers treat any event as "read the state again".
 */
export function createPgEventTarget(options: PgEventTargetOptions): SharedEventTarget {
  const { query, logger } = options;
  const channel = options.channel ?? EVENTS_CHANNEL;
  const origin = randomBytes(6).toString('base64url');
  const callbacks = new Map<string, Set<Callback>>();

  const deliver = (topic: string, detail: unknown) => {
    const listeners = callbacks.get(topic);
    if (listeners === undefined) return;
    const event = new CustomEvent(topic, { detail });
    for (const callback of [...listeners]) {
      try {
        callback(event);
      } catch (err) {
        logger.error({ err, topic }, 'event subscriber failed');
      }
    }
  };

  const listener = new PgListener({
    connectionString: options.connectionString,
    channel,
    logger,
    onNotification(payload) {
      let wire: Wire;
      try {
        wire = JSON.parse(payload) as Wire;
      } catch {
        logger.warn({ channel }, 'unreadable notification ignored');
        return;
      }
      if (wire.o === origin || typeof wire.t !== 'string') return;
      deliver(wire.t, wire.d ?? null);
    },
    onListening() {
      for (const topic of callbacks.keys()) deliver(topic, null);
    },
  });

  let queue: string[] = [];
  /** A flush to come: on the next tick, or after a backoff once the database refused one. */
  let scheduled: { kind: 'tick'; handle: NodeJS.Immediate } | { kind: 'retry'; handle: NodeJS.Timeout } | undefined;
  let flushing: Promise<void> | undefined;
  let failures = 0;

  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const payloads = queue.slice(0, FLUSH_SIZE);
      try {
        await notifyPayloads(query, channel, payloads);
        queue = queue.slice(payloads.length);
        failures = 0;
      } catch (err) {
        const delay = backoffDelay(failures++, reconnectBackoff);
        logger.warn({ err, queued: queue.length, retryInMs: delay }, 'could not send events to other processes; retrying');
        if (!closed) {
          const handle = setTimeout(() => void run(), delay);
          handle.unref();
          scheduled = { kind: 'retry', handle };
        }
        return;
      }
    }
  };
  const run = (): Promise<void> => {
    // Whatever was scheduled has fired: a flush in progress takes up what is queued now.
    scheduled = undefined;
    flushing ??= flush().finally(() => {
      flushing = undefined;
      if (queue.length > 0 && scheduled === undefined && !closed) schedule();
    });
    return flushing;
  };
  const schedule = () => {
    scheduled ??= { kind: 'tick', handle: setImmediate(() => void run()) };
  };

  let closed = false;

  const toCallback = (callback: EventListenerOrEventListenerObject | null): Callback | undefined => {
    if (callback === null) return undefined;
    return typeof callback === 'function' ? callback : (event) => callback.handleEvent(event);
  };
  // handleEvent objects need the same wrapper on removal as on addition.
  const wrapped = new WeakMap<EventListenerObject, Callback>();
  const callbackOf = (callback: EventListenerOrEventListenerObject | null): Callback | undefined => {
    if (callback === null || typeof callback === 'function') return toCallback(callback);
    let fn = wrapped.get(callback);
    if (fn === undefined) {
      fn = toCallback(callback)!;
      wrapped.set(callback, fn);
    }
    return fn;
  };

  return {
    addEventListener(topic: string, callback: EventListenerOrEventListenerObject | null) {
      const fn = callbackOf(callback);
      if (fn === undefined) return;
      let set = callbacks.get(topic);
      if (set === undefined) callbacks.set(topic, (set = new Set()));
      set.add(fn);
      listener.start();
    },
    removeEventListener(topic: string, callback: EventListenerOrEventListenerObject | null) {
      const fn = callbackOf(callback);
      const set = callbacks.get(topic);
      if (fn === undefined || set === undefined) return;
      set.delete(fn);
      if (set.size === 0) callbacks.delete(topic);
    },
    dispatchEvent(event: Event) {
      const detail = (event as CustomEvent).detail as unknown;
      deliver(event.type, detail ?? null);
      if (closed) return true;
      let payload = JSON.stringify({ o: origin, t: event.type, d: detail } satisfies Wire);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
        // The topic alone still makes subscribers elsewhere read the state again.
        logger.warn({ topic: event.type }, 'event detail too large to notify; sent without it');
        payload = JSON.stringify({ o: origin, t: event.type } satisfies Wire);
      }
      queue.push(payload);
      if (queue.length > MAX_QUEUED) queue = queue.slice(queue.length - MAX_QUEUED);
      schedule();
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (scheduled?.kind === 'tick') clearImmediate(scheduled.handle);
      if (scheduled?.kind === 'retry') clearTimeout(scheduled.handle);
      scheduled = undefined;
      // One last attempt for what is queued (a worker's final events), then stop listening.
      await (flushing ?? Promise.resolve());
      if (queue.length > 0) await run();
      await listener.close();
      callbacks.clear();
    },
  };
}

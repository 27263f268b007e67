import type { EventEmitter } from 'node:events';

/**
 * An emitter's events as an async iterator whose return() takes effect at once, even
 * while a next() is waiting: a GraphQL subscriber that disconnects is let go
 * immediately, not at the next event (as with events.on or an async generator).
 */
export function listen<T>(emitter: EventEmitter, event: string): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let closed = false;
  const listener = (value: T) => {
    if (waiting === undefined) {
      queue.push(value);
      return;
    }
    const resolve = waiting;
    waiting = undefined;
    resolve({ value, done: false });
  };
  emitter.on(event, listener);
  const close = () => {
    if (closed) return;
    closed = true;
    emitter.off(event, listener);
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
  };
  return {
    next: () => {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
      if (closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: async () => {
      close();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * One tick at once, then at most one per `intervalMs` however many events arrive (a
 * burst becomes one tick); ends after a tick for which `isDone` says so.
 */
export function coalesce(source: AsyncIterableIterator<unknown>, intervalMs: number, isDone: () => Promise<boolean>): AsyncIterableIterator<void> {
  let dirty = true;
  let closed = false;
  let last = 0;
  let ticked = false;
  let waiting: ((result: IteratorResult<void>) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    closed = true;
    clearTimeout(timer);
    void source.return?.();
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
  };
  const flush = () => {
    if (waiting === undefined || !dirty || closed) return;
    const wait = last + intervalMs - Date.now();
    if (wait > 0) {
      timer ??= setTimeout(() => {
        timer = undefined;
        flush();
      }, wait);
      return;
    }
    dirty = false;
    last = Date.now();
    const resolve = waiting;
    waiting = undefined;
    resolve({ value: undefined, done: false });
  };
  void (async () => {
    for await (const _ of source) {
      dirty = true;
      flush();
    }
  })();
  return {
    async next() {
      if (!closed && ticked && (await isDone())) close();
      if (closed) return { value: undefined, done: true };
      ticked = true;
      const result = new Promise<IteratorResult<void>>((resolve) => (waiting = resolve));
      flush();
      return result;
    },
    return: async () => {
      close();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** `first`, then whatever `rest` yields; return() reaches `rest` at once. */
export function startWith<T>(first: T, rest: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  let sent = false;
  return {
    next: () => {
      if (sent) return rest.next();
      sent = true;
      return Promise.resolve({ value: first, done: false });
    },
    return: async () => {
      await rest.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

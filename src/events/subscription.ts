export interface FollowOptions<S> {
  /** The state as the database has it now. */
  read(): Promise<S>;
  /** The stream ends once a final state has been sent. */
  isFinal(state: S): boolean;
  /** A state read again and found equal to the last one sent is not sent again. */
  same?(a: S, b: S): boolean;
  /** At most one read per this many ms however many events arrive (a burst becomes one read). */
  intervalMs?: number;
  /** The stream ends (as a finished one does, with `complete`) once this aborts: the gateway is shutting down. */
  until?: AbortSignal;
}

/** How long to wait before reading again after a failed read (the database may be restarting). */
const READ_RETRY_MS = 1_000;

/**
 * A GraphQL subscription over any kind of event stream: the state now, then the state read
 * again after events, ending once a final state has been sent. Events only say "it may have
 * changed" (a notice from another process, a reconnect); what is sent is always read from
 * the database, so a lost, repeated or reordered event never leaves a subscriber behind,
 * and the state that ends the stream is the one the subscriber received last.
 *
 * `events` is attached before the first read, so no change after that read can be missed.
 * return() takes effect at once, even while a next() waits: a subscriber that disconnects
 * is let go immediately, not at the next event.
 */
export function followState<S>(events: AsyncIterator<unknown>, options: FollowOptions<S>): AsyncIterableIterator<S> {
  const intervalMs = options.intervalMs ?? 0;
  let closed = false;
  let dirty = false;
  let sourceEnded = false;
  let started = false;
  let sentFinal = false;
  let last: { state: S } | undefined;
  let lastReadAt = 0;
  let wake: (() => void) | undefined;

  const signal = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  /** Until something happens (an event, the end, close) or `ms` pass. */
  const pause = (ms?: number) =>
    new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(signal, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const close = () => {
    if (closed) return;
    closed = true;
    options.until?.removeEventListener('abort', close);
    void events.return?.();
    signal();
  };
  if (options.until?.aborted === true) close();
  options.until?.addEventListener('abort', close, { once: true });

  // Calling next() now attaches a lazy source (a yoga pubsub Repeater) before the first read.
  void (async () => {
    try {
      for (;;) {
        const result = await events.next();
        if (result.done) break;
        dirty = true;
        signal();
      }
    } catch {
      // A failed source ends like a finished one: the state is read once more, then the stream ends.
      dirty = true;
    } finally {
      sourceEnded = true;
      signal();
    }
  })();

  const sent = (state: S): IteratorResult<S> => {
    last = { state };
    sentFinal = options.isFinal(state);
    return { value: state, done: false };
  };
  const done = (): IteratorResult<S> => {
    close();
    return { value: undefined, done: true };
  };

  return {
    async next() {
      if (closed) return done();
      if (!started) {
        started = true;
        lastReadAt = Date.now();
        const state = await options.read();
        return closed ? done() : sent(state);
      }
      if (sentFinal) return done();
      for (;;) {
        if (!dirty) {
          if (sourceEnded) return done();
          await pause();
          if (closed) return done();
          continue;
        }
        const wait = lastReadAt + intervalMs - Date.now();
        if (wait > 0) {
          await pause(wait);
          if (closed) return done();
          if (Date.now() < lastReadAt + intervalMs) continue;
        }
        dirty = false;
        lastReadAt = Date.now();
        let state: S;
        try {
          state = await options.read();
        } catch {
          if (closed) return done();
          dirty = true;
          lastReadAt = Date.now() + READ_RETRY_MS - intervalMs;
          continue;
        }
        if (closed) return done();
        if (last !== undefined && options.same?.(last.state, state) === true) continue;
        return sent(state);
      }
    },
    async return() {
      close();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

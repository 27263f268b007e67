import { describe, expect, it } from 'vitest';
import { BatchEvents } from '../../src/batch/events/batch-events.ts';
import { followState } from '../../src/events/subscription.ts';

/** A state held in memory, with a counter of reads, behind the in-process batch events. */
function world(initial: string) {
  const events = new BatchEvents();
  const state = { value: initial, reads: 0 };
  const follow = (options: { intervalMs?: number; same?: boolean; onRead?: () => void; until?: AbortSignal } = {}) =>
    followState(events.subscribe('b'), {
      read: async () => {
        state.reads++;
        options.onRead?.();
        return state.value;
      },
      isFinal: (value) => value === 'DONE',
      ...(options.same === true ? { same: (a: string, b: string) => a === b } : {}),
      intervalMs: options.intervalMs ?? 0,
      ...(options.until === undefined ? {} : { until: options.until }),
    });
  const change = (value: string) => {
    state.value = value;
    events.publish('b');
  };
  return { events, state, follow, change };
}

describe('followState', () => {
  it('sends the state now, then the state read after each event, and ends after the final one', async () => {
    const w = world('A');
    const stream = w.follow();
    expect(await stream.next()).toEqual({ value: 'A', done: false });
    const second = stream.next();
    w.change('B');
    expect(await second).toEqual({ value: 'B', done: false });
    const third = stream.next();
    w.change('DONE');
    expect(await third).toEqual({ value: 'DONE', done: false });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('ends when `until` aborts (the gateway shutting down), even while waiting for an event', async () => {
    const w = world('A');
    const shutdown = new AbortController();
    const stream = w.follow({ until: shutdown.signal });
    expect(await stream.next()).toEqual({ value: 'A', done: false });
    const waiting = stream.next();
    shutdown.abort();
    expect(await waiting).toEqual({ value: undefined, done: true });
    // Aborted before it starts: no read at all.
    const reads = w.state.reads;
    expect(await w.follow({ until: shutdown.signal }).next()).toEqual({ value: undefined, done: true });
    expect(w.state.reads).toBe(reads);
  });

  it('ends at once for a state that is final already', async () => {
    const w = world('DONE');
    const values: string[] = [];
    for await (const value of w.follow()) values.push(value);
    expect(values).toEqual(['DONE']);
  });

  it('misses no change made while the first state is read', async () => {
    const w = world('A');
    let first = true;
    const stream = w.follow({
      onRead: () => {
        if (!first) return;
        first = false;
        // Another process writes between the read and the first event sent.
        w.change('B');
      },
    });
    await stream.next();
    expect(await stream.next()).toEqual({ value: 'B', done: false });
    await stream.return?.();
  });

  it('does not send a state equal to the last one sent, when told how to compare', async () => {
    const w = world('A');
    const stream = w.follow({ same: true });
    await stream.next();
    const next = stream.next();
    w.events.publish('b');
    w.events.publish('b');
    // Both notices read A again: nothing is sent until the state differs.
    await new Promise((resolve) => setTimeout(resolve, 20));
    w.change('DONE');
    expect(await next).toEqual({ value: 'DONE', done: false });
  });

  it('turns a burst of events into few reads', async () => {
    const w = world('A');
    const stream = w.follow({ intervalMs: 50 });
    await stream.next();
    const next = stream.next();
    for (let i = 0; i < 500; i++) w.change(`S${i}`);
    expect(await next).toEqual({ value: 'S499', done: false });
    expect(w.state.reads).toBeLessThanOrEqual(3);
    await stream.return?.();
  });

  it('lets a subscriber go at once, even while waiting for an event', async () => {
    const w = world('A');
    const stream = w.follow();
    await stream.next();
    const waiting = stream.next();
    await stream.return?.();
    expect(await waiting).toEqual({ value: undefined, done: true });
    // The subscription is detached: a later event reads nothing.
    const reads = w.state.reads;
    w.change('B');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(w.state.reads).toBe(reads);
  });
});

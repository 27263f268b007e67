import type { CallObserver, ObservedCall } from '../../payout/call-hooks.ts';

/**
 * The deployment's partner budget (docs/decisions/0033-one-partner-budget.md): calls per
 * second and calls in flight for every process on one database together. This file is the
 * process's side: it queues calls, hands out the slots and send times its store holds, and
 * holds every call while a 429's Retry-After lasts. The store is where the deployment's
 * budget lives: in this process (local-store.ts, PGlite: one process) or in PostgreSQL
 * (shared-store.ts). It is a courtesy to the partner, not a guard of money: no property of
 * the payment protocol depends on it.
 */
export interface BudgetSettings {
  /** Calls per second for the whole deployment; 0: none. */
  callsPerSecond: number;
  /** Calls in flight at once for the whole deployment; 0: none. */
  callsInFlight: number;
}

export interface BudgetStore {
  /** Up to `want` more in-flight slots for this process, and how many processes want slots now (this one too). */
  takeSlots(want: number): Promise<{ slots: number[]; sharers: number }>;
  /** How many processes want slots now, when this one has calls waiting while it holds slots. */
  sharers(): Promise<number>;
  returnSlots(slots: number[]): Promise<void>;
  /** `n` send times 1/rate apart on the deployment's clock; the first, as milliseconds from now. */
  takeTimes(n: number): Promise<{ firstInMs: number }>;
  /** Holds every process's calls for `ms` (a 429's Retry-After); told back through onPause to each. */
  pause(ms: number): Promise<void>;
  /** Told of a pause any process began (this one's too), in milliseconds from now. */
  onPause(listener: (ms: number) => void): void;
  /** Told when the slots this process held are no longer its (its connection to the database was lost). */
  onSlotsLost(listener: () => void): void;
  close(): Promise<void>;
}

/** What a call holds from the budget until it has its answer. */
export interface BudgetPermit {
  release(): void;
}

export interface BudgetView {
  callsPerSecond: number;
  callsInFlight: number;
  /** This process's calls sent and not yet answered. */
  inFlight: number;
  /** In-flight slots this process holds (busy or idle). */
  slotsHeld: number;
  /** Calls of this process waiting for a slot, a send time or a pause's end. */
  waiting: number;
  /** Epoch milliseconds until which calls are held after a 429, or 0. */
  pausedUntil: number;
  /** Seconds calls of this process have waited for the budget, in all. */
  waitedSeconds: number;
}

const NO_PERMIT: BudgetPermit = { release() {} };
/** The longest a 429's Retry-After holds every call. */
const MAX_PAUSE_MS = 30_000;
/** A send time this far in the past is not used: sending it now would crowd the next ones. */
const STALE_TIME_MS = 50;
/** Send times asked for at once: at most this share of a second's budget. */
const TIMES_PER_GRANT_SECONDS = 0.25;
/** Idle slots are given back after this, not at once: a worker's groups of calls come in waves. */
const LINGER_MS = 1_000;
/** While calls wait for slots others hold: how often it asks again, and learns whether it holds more than its share. */
const SHARE_CHECK_MS = 250;

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

export class CallBudget implements CallObserver {
  private readonly free: number[] = [];
  private readonly held = new Set<number>();
  private readonly slotWaiters: Array<Waiter & { slot?: number }> = [];
  private readonly timeWaiters: Array<Waiter & { at?: number }> = [];
  private times: number[] = [];
  /** The latest send time granted here. */
  private lastTime = 0;
  private share: number;
  private busy = 0;
  private waiting = 0;
  private waitedMs = 0;
  private pausedUntil = 0;
  private toppingUp = false;
  private granting = false;
  private lingerTimer: NodeJS.Timeout | undefined;
  private shareTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    readonly settings: BudgetSettings,
    private readonly store: BudgetStore,
  ) {
    this.share = settings.callsInFlight;
    store.onPause((ms) => {
      this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
    });
    store.onSlotsLost(() => {
      // Calls in flight keep going (nothing recalls a request); their slots are simply not ours to hand on.
      this.held.clear();
      this.free.length = 0;
      if (this.slotWaiters.length > 0) this.topUpSoon(SHARE_CHECK_MS);
    });
  }

  get limited(): boolean {
    return this.settings.callsInFlight > 0 || this.settings.callsPerSecond > 0;
  }

  /** Waits for the budget to allow one call now; the permit is released when its answer is in. */
  async acquire(signal?: AbortSignal): Promise<BudgetPermit> {
    if (!this.limited && this.pausedUntil <= Date.now()) return NO_PERMIT;
    const started = Date.now();
    this.waiting++;
    let slot: number | undefined;
    try {
      slot = this.settings.callsInFlight > 0 ? await this.takeSlot(signal) : undefined;
      for (;;) {
        await this.pauseEnds(signal);
        if (this.settings.callsPerSecond > 0) await this.sendTime(signal);
        // A pause begun while this call waited for its time: that time is spent, a new one is taken after the pause.
        if (this.pausedUntil <= Date.now()) break;
      }
    } catch (error) {
      if (slot !== undefined) this.giveBack(slot);
      throw error;
    } finally {
      this.waiting--;
      this.waitedMs += Date.now() - started;
    }
    this.busy++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.busy--;
        if (slot !== undefined) this.giveBack(slot);
      },
    };
  }

  /** Every call's end: a 429 with Retry-After holds every process's calls, this one's at once. */
  onCall(call: ObservedCall): void {
    if (call.outcome !== 'throttled' || call.retryAfterMs === undefined || call.retryAfterMs <= 0) return;
    // A longer throttle is the breaker's to probe (decision 0025): a person's read is not held for minutes.
    const ms = Math.min(call.retryAfterMs, MAX_PAUSE_MS);
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
    this.store.pause(ms).catch(() => {
      // The others learn of it from their own 429s; this process holds its calls all the same.
    });
  }

  view(): BudgetView {
    return {
      callsPerSecond: this.settings.callsPerSecond,
      callsInFlight: this.settings.callsInFlight,
      inFlight: this.busy,
      slotsHeld: this.held.size,
      waiting: this.waiting,
      pausedUntil: this.pausedUntil > Date.now() ? this.pausedUntil : 0,
      waitedSeconds: this.waitedMs / 1000,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.lingerTimer);
    clearTimeout(this.shareTimer);
    const closing = new Error('the partner budget is closed');
    for (const waiter of this.slotWaiters.splice(0)) waiter.reject(closing);
    for (const waiter of this.timeWaiters.splice(0)) waiter.reject(closing);
    await this.store.close();
  }

  private async takeSlot(signal: AbortSignal | undefined): Promise<number> {
    const free = this.free.pop();
    if (free !== undefined) return free;
    const waiter = this.wait(this.slotWaiters, signal);
    const me = this.slotWaiters[this.slotWaiters.length - 1]!;
    this.topUp();
    await waiter;
    return me.slot!;
  }

  /** A slot to the first call waiting for one, or kept free. */
  private handOn(slot: number): void {
    const next = this.slotWaiters.shift();
    if (next === undefined) {
      this.free.push(slot);
      return;
    }
    next.slot = slot;
    next.resolve();
  }

  /** Queues a waiter that settles when handed what it waits for, or rejects when `signal` aborts. */
  private wait<W extends Waiter>(queue: W[], signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        reject(signal?.reason);
      };
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      } as W;
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  }

  /** A slot back from a call: to a waiter here, or to the deployment when this process holds more than its share. */
  private giveBack(slot: number): void {
    if (!this.held.has(slot)) return;
    if (this.held.size > this.share) {
      this.held.delete(slot);
      this.store.returnSlots([slot]).catch(() => {});
      return;
    }
    this.handOn(slot);
    if (this.slotWaiters.length === 0) this.lingerSoon();
  }

  private lingerSoon(): void {
    if (this.lingerTimer !== undefined || this.closed) return;
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      if (this.slotWaiters.length > 0 || this.free.length === 0) return;
      const idle = this.free.splice(0);
      for (const slot of idle) this.held.delete(slot);
      this.store.returnSlots(idle).catch(() => {});
    }, LINGER_MS);
    this.lingerTimer.unref();
  }

  /** Asks the store for slots while calls wait for one (one request at a time). */
  private topUp(): void {
    if (this.toppingUp || this.closed || this.slotWaiters.length === 0) return;
    this.toppingUp = true;
    const want = Math.max(0, Math.min(this.slotWaiters.length, this.share - this.held.size));
    const asking = want > 0 ? this.store.takeSlots(want) : this.store.sharers().then((sharers) => ({ slots: [], sharers }));
    asking
      .then(({ slots, sharers }) => {
        this.share = Math.max(1, Math.ceil(this.settings.callsInFlight / Math.max(1, sharers)));
        for (const slot of slots) {
          this.held.add(slot);
          this.handOn(slot);
        }
      })
      .catch(() => {})
      .finally(() => {
        this.toppingUp = false;
        // Slots others hold come back as their calls end: ask again a little later.
        if (this.slotWaiters.length > 0) this.topUpSoon(SHARE_CHECK_MS);
      });
  }

  private topUpSoon(ms: number): void {
    if (this.shareTimer !== undefined || this.closed) return;
    this.shareTimer = setTimeout(() => {
      this.shareTimer = undefined;
      this.topUp();
    }, ms);
  }

  private async pauseEnds(signal: AbortSignal | undefined): Promise<void> {
    while (this.pausedUntil > Date.now()) {
      await abortableSleep(this.pausedUntil - Date.now(), signal);
    }
  }

  /** Waits for this call's send time: one of those this process was granted, or of a new grant. */
  private async sendTime(signal: AbortSignal | undefined): Promise<void> {
    const now = Date.now();
    while (this.times.length > 0 && this.times[0]! < now - STALE_TIME_MS) this.times.shift();
    let at = this.times.shift();
    if (at === undefined) {
      const waiter = this.wait(this.timeWaiters, signal);
      const me = this.timeWaiters[this.timeWaiters.length - 1]!;
      this.grant();
      await waiter;
      at = me.at!;
    }
    if (at > Date.now()) await abortableSleep(at - Date.now(), signal);
  }

  /** One grant of send times at a time, for the calls waiting for one. */
  private grant(): void {
    if (this.granting || this.closed || this.timeWaiters.length === 0) return;
    this.granting = true;
    const most = Math.max(1, Math.ceil(this.settings.callsPerSecond * TIMES_PER_GRANT_SECONDS));
    const n = Math.min(this.timeWaiters.length, most);
    const interval = 1000 / this.settings.callsPerSecond;
    this.store
      .takeTimes(n)
      // Without the database (an outage), this process spaces its own calls at the whole rate: workers write nothing meanwhile, a person's reads go on.
      .catch(() => ({ firstInMs: Math.max(0, this.lastTime + interval - Date.now()) }))
      .then(({ firstInMs }) => {
        const first = Date.now() + firstInMs;
        const granted = Array.from({ length: n }, (_, i) => first + i * interval);
        this.lastTime = Math.max(this.lastTime, granted.at(-1)!);
        for (const at of granted) {
          const waiter = this.timeWaiters.shift();
          if (waiter === undefined) this.times.push(at);
          else {
            waiter.at = at;
            waiter.resolve();
          }
        }
      })
      .finally(() => {
        this.granting = false;
        this.grant();
      });
  }
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

import type { Logger } from '../log/logger.ts';
import { SandboxApiError } from './api-error.ts';
import { callKinds, callKindOf, type CallKind } from './call-counts.ts';
import { formatDateTime } from './clock.ts';
import type { Operation } from './faults.ts';

/**
 * Payday trouble on demand (a test feature, not the partner's): for a while the sandbox
 * - refuse: closes its listening socket, so a connection is refused before any byte of a
 *   request is written (ECONNREFUSED: the client knows the call was not sent); it listens
 *   again on the same port when the outage ends. The test routes share that port.
 * - hang: reads each call and answers nothing until the outage ends; then the calls still
 *   waiting are served as usual (`then: answer`) or cut without effect (`then: drop`). A
 *   call whose caller gave up meanwhile is never processed.
 * - status: answers 503 or 429 with Retry-After and the spec's Error object, no effect.
 */
export const outageModes = ['refuse', 'hang', 'status'] as const;
export type OutageMode = (typeof outageModes)[number];
export const outageStatuses = [503, 429] as const;

export interface OutageSetting {
  mode: OutageMode;
  forMs: number;
  /** Which calls it hits; refuse always hits the whole port. */
  kinds: CallKind[];
  status?: (typeof outageStatuses)[number];
  /** The Retry-After header; by default the seconds left in the outage. */
  retryAfterSeconds?: number;
  then?: 'answer' | 'drop';
}

export interface OutageView {
  mode: OutageMode;
  kinds: CallKind[];
  since: string;
  until: string;
  secondsLeft: number;
  status?: number;
  retryAfterSeconds?: number;
  then?: 'answer' | 'drop';
  /** Calls a hang holds unanswered now. */
  hanging?: number;
}

/** What becomes of a partner call: served, refused with an Error object, or held. */
export type OutageVerdict = { action: 'serve' } | { action: 'answer'; error: SandboxApiError } | { action: 'hang' };

/** The listening socket, closed and opened again by a refusal. */
export interface OutageListener {
  stop(): void;
  reopen(): Promise<void>;
}

/** How a held call ends: served, cut, or its caller already gone. */
export type HangEnd = 'answer' | 'drop' | 'gone';

interface Active {
  setting: OutageSetting;
  since: number;
  until: number;
  timer: NodeJS.Timeout;
  waiting: Set<(end: 'answer' | 'drop') => void>;
}

export const allCallKinds: CallKind[] = [...callKinds];

export class Outage {
  private active: Active | undefined;
  /** Starts and ends one after another: a refusal's listen again must finish before the next close. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly listener: OutageListener,
    private readonly now: () => number,
    private readonly logger?: Logger,
  ) {}

  current(): OutageView | undefined {
    return this.active === undefined ? undefined : this.describe(this.active);
  }

  /** Whether an outage is in force, whatever calls it hits. */
  get inForce(): boolean {
    return this.active !== undefined;
  }

  /** Replaces the outage in force, if any (that one ends first, as `clear` would end it). */
  start(setting: OutageSetting): Promise<OutageView> {
    return this.serialized(async () => {
      await this.end();
      if (this.closed) throw new Error('the sandbox is closed');
      const since = this.now();
      const active: Active = {
        setting,
        since,
        until: since + setting.forMs,
        // Not unref'd: a standalone sandbox that refuses has no listening socket keeping it alive.
        timer: setTimeout(() => void this.clear(), setting.forMs),
        waiting: new Set(),
      };
      this.active = active;
      if (setting.mode === 'refuse') this.listener.stop();
      this.logger?.warn({ outage: this.describe(active) }, 'sandbox outage started (test feature)');
      return this.describe(active);
    });
  }

  /** Ends the outage in force; resolves to what it was, or undefined when there was none. */
  clear(): Promise<OutageView | undefined> {
    return this.serialized(() => this.end());
  }

  verdict(operation: Operation): OutageVerdict {
    const active = this.active;
    if (active === undefined || !active.setting.kinds.includes(callKindOf(operation))) return { action: 'serve' };
    const { setting } = active;
    if (setting.mode === 'hang') return { action: 'hang' };
    if (setting.mode === 'status') {
      const retryAfterSeconds = setting.retryAfterSeconds ?? Math.max(1, Math.ceil((active.until - this.now()) / 1000));
      const description =
        setting.status === 429
          ? 'too many requests (sandbox outage, a test feature)'
          : 'the service is temporarily unavailable (sandbox outage, a test feature)';
      return {
        action: 'answer',
        error: new SandboxApiError('payout.provider.unavailable', description, undefined, {
          httpStatus: setting.status ?? 503,
          retryAfterSeconds,
        }),
      };
    }
    // A call on a connection opened before the refusal: served, and the connection then closed.
    return { action: 'serve' };
  }

  /**
   * Holds a call until the hang ends. `caller` is the call's response: its `close` before
   * an answer means the caller went away, and the call is let go unprocessed.
   */
  hold(caller: { once(event: 'close', listener: () => void): unknown }): Promise<HangEnd> {
    const active = this.active;
    if (active === undefined) return Promise.resolve('answer');
    return new Promise<HangEnd>((resolve) => {
      const release = (end: 'answer' | 'drop') => resolve(end);
      active.waiting.add(release);
      caller.once('close', () => {
        if (active.waiting.delete(release)) resolve('gone');
      });
    });
  }

  /** On the sandbox's close: no listen again, held calls cut. */
  close(): void {
    this.closed = true;
    const active = this.active;
    if (active === undefined) return;
    this.active = undefined;
    clearTimeout(active.timer);
    for (const release of active.waiting) release('drop');
  }

  private async end(): Promise<OutageView | undefined> {
    const active = this.active;
    if (active === undefined) return undefined;
    const view = this.describe(active);
    this.active = undefined;
    clearTimeout(active.timer);
    const waiting = [...active.waiting];
    active.waiting.clear();
    for (const release of waiting) release(active.setting.then ?? 'answer');
    if (active.setting.mode === 'refuse' && !this.closed) await this.listener.reopen();
    this.logger?.warn({ outage: view }, 'sandbox outage ended');
    return view;
  }

  private serialized<T>(step: () => Promise<T>): Promise<T> {
    const next = this.queue.then(step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private describe(active: Active): OutageView {
    const { setting } = active;
    return {
      mode: setting.mode,
      kinds: [...setting.kinds],
      since: formatDateTime(active.since),
      until: formatDateTime(active.until),
      secondsLeft: Math.max(0, Math.ceil((active.until - this.now()) / 1000)),
      ...(setting.mode === 'status' ? { status: setting.status ?? 503 } : {}),
      ...(setting.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: setting.retryAfterSeconds }),
      ...(setting.mode === 'hang' ? { then: setting.then ?? 'answer', hanging: active.waiting.size } : {}),
    };
  }
}

import { SandboxApiError } from './api-error.ts';

/**
 * A partner's rate limit, as partners commonly state one: `callsPerSecond` calls a second,
 * with bursts up to a second's worth (a token bucket). A call beyond it is answered 429 with
 * Retry-After and has no effect. Not in the spec (it states no limit): a test feature for the
 * gateway's partner budget (partner/budget/). 0: no limit.
 */
export class PartnerRateLimit {
  private tokens: number;
  private refilledAt: number;
  private throttledCalls = 0;

  constructor(
    private callsPerSecond: number,
    private readonly now: () => number,
  ) {
    this.tokens = callsPerSecond;
    this.refilledAt = now();
  }

  get limit(): number {
    return this.callsPerSecond;
  }

  get throttled(): number {
    return this.throttledCalls;
  }

  set(callsPerSecond: number): void {
    this.callsPerSecond = callsPerSecond;
    this.tokens = callsPerSecond;
    this.refilledAt = this.now();
  }

  resetCount(): void {
    this.throttledCalls = 0;
  }

  /** Takes a token for a call that arrived, or throws the 429 that answers it. */
  take(): void {
    if (this.callsPerSecond <= 0) return;
    const now = this.now();
    this.tokens = Math.min(this.callsPerSecond, this.tokens + ((now - this.refilledAt) / 1000) * this.callsPerSecond);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return;
    }
    this.throttledCalls++;
    const waitMs = ((1 - this.tokens) / this.callsPerSecond) * 1000;
    throw new SandboxApiError('payout.provider.unavailable', `too many requests: the limit is ${this.callsPerSecond} a second`, undefined, {
      httpStatus: 429,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    });
  }
}

import type { PayoutError } from './errors.ts';

/** What a caller of PayoutClient passes with a call, and what it is told of calls (payout/client.ts). */

export interface CallOptions {
  /** Aborted when the caller no longer owns the payment (a worker that lost its lease). */
  signal?: AbortSignal;
  /** Asked right before a create or execute leaves: a caller that may no longer send says so (decision 0027). */
  fence?: SendFence;
  /** A read sent once, not retried: a person waits, and the gateway's record answers if it fails (payments/live-read.ts). */
  once?: boolean;
  /**
   * Told before an attempt waits to send again (payments/attempt.ts), with why and for how
   * long: a batch row says so while it waits, before enough failures open the breaker (issue
   * 38). Must not throw; not awaited.
   */
  onRetry?: (error: PayoutError | undefined, delayMs: number) => void;
}

/**
 * Whether a create or execute may still leave for a payment. `refusal` is asked synchronously
 * right before each one is sent (no await between the answer and the request), so it can only
 * read what its owner knows: a batch worker's lease by its own clock. `confirm` asks the
 * database, before a send that no durable write has just allowed (a send repeated within an
 * attempt, an execute after a read-back).
 */
export interface SendFence {
  refusal(): PayoutError | undefined;
  confirm(): Promise<PayoutError | undefined>;
}

/** How a call ended, in classes few enough to be a metric label. */
export type CallOutcome = 'ok' | 'refused' | 'throttled' | 'server-error' | 'bad-response' | 'timeout' | 'network-error' | 'aborted';

export interface ObservedCall {
  method: string;
  /** Below the agent's base path, ids included: /payments/p-1/execute. */
  path: string;
  outcome: CallOutcome;
  seconds: number;
  /** A failure's code, and the upstream's traceId when it answered with an Error object. */
  code?: string;
  traceId?: string;
  /** A 429's or 503's Retry-After, in milliseconds. */
  retryAfterMs?: number;
}

/**
 * Asked before every call but a probe: an error to throw instead of sending (the partner
 * breaker, partner/partner-breaker.ts, while it is open), or undefined to send.
 */
export interface CallGate {
  /** `call` lets a gate pass the one call it probes with (the breaker's row probe). */
  refusal(call?: { method: string; path: string }): PayoutError | undefined;
}

/** Told of every call that ends (observability/metrics.ts); must not throw. */
export interface CallObserver {
  onCall(call: ObservedCall): void;
}

/**
 * Waited on before every call (partner/budget/call-budget.ts): resolves when the
 * deployment's budget lets one more call leave; the permit is released at its answer.
 */
export interface CallBudgetGate {
  acquire(signal?: AbortSignal): Promise<{ release(): void }>;
}

import type { PayoutClient } from '../payout/client.ts';
import type { CallOptions } from '../payout/call-hooks.ts';
import { retryAfterMs, retryDelay, sleep, type BackoffOptions } from '../lib/retry.ts';
import { recipientDifferences } from '../payout/compare.ts';
import {
  PaymentConflictError,
  PaymentOutcomeUnknownError,
  PayoutApiError,
  PayoutError,
  PaymentStillReadyError,
  notSent,
} from '../payout/errors.ts';
import type { Payment, PaymentPayload } from '../payout/models.ts';
import { inSpan } from '../log/spans.ts';

/**
 * What one attempt at a payment came to. A closed set: anything that is not proven is
 * `unknown`, and only `not-paid` refused or absent lets a caller pay the same row again
 * under a new id. `not-paid` ready says no execute has landed *so far*: one held up on the
 * way may still land, so it allows executing again (same paymentId), never a new one.
 *
 * | kind        | proven by                                                        |
 * |-------------|------------------------------------------------------------------|
 * | paid        | the upstream says COMPLETED                                      |
 * | in-progress | the upstream says IN_PROGRESS                                    |
 * | failed      | the upstream says FAILED or EXPIRED (no money moved)             |
 * | not-paid    | a 4xx Error object (`refused`), or a read-back that finds the    |
 * |             | payment absent after create or READY after execute               |
 * | unknown     | nothing: the answer was lost and reading back did not settle it  |
 * | unreachable | nothing was sent: every call of the attempt failed before its    |
 * |             | request was written (connection refused, DNS, TLS, breaker open) |
 *
 * `unreachable` changes nothing and proves nothing about the payment: the caller leaves it
 * as it was before the attempt and tries again later, without counting a retry. `unknown`
 * with `unread` is a send whose read-back could not reach the partner: the read is owed,
 * not a sign of trouble with this payment.
 */
export type Outcome =
  | { kind: 'paid'; payment: Payment }
  | { kind: 'in-progress'; payment: Payment }
  | { kind: 'failed'; payment: Payment }
  | { kind: 'not-paid'; proof: NotPaidProof; error: PayoutError }
  | { kind: 'unknown'; error: PayoutError; unread?: true }
  | { kind: 'unreachable'; error: PayoutError };

/**
 * A create or execute the partner answered with 429 while the caller lets its payments rest
 * (`rest`): nothing more is sent in this attempt, and nothing is proven (a 429 proves
 * nothing, so the row stays in the state written before the call: CREATING is created again
 * with the same paymentId, EXECUTING is read back before any execute). `restMs` is the
 * partner's Retry-After, capped by `maxRetryAfterMs`, when it gave one.
 */
export type Throttled = { kind: 'throttled'; error: PayoutApiError; restMs: number | undefined };

/** What a create or execute comes to: an outcome, or throttled when the caller rests. */
export type SendOutcome = CreateOutcome | Throttled;

/**
 * What a 429 does within an attempt: `wait` sleeps (up to `maxRetryAfterMs`) and sends again,
 * for a caller with a person waiting on the answer (GraphQL); `rest` returns at once, for the
 * batch worker, whose row rests without holding its slot or spending a retry (decision 0011).
 */
export type ThrottleMode = 'wait' | 'rest';

export type NotPaidProof = 'refused' | 'absent' | 'ready';

/** After create: READY (execute may follow), or already an outcome. */
export type CreateOutcome = { kind: 'ready'; payment: Payment } | Outcome;

export interface AttemptOptions {
  /** Sends of the same create or execute at most, when answers are lost. */
  maxSends: number;
  /** Wait between sends; Retry-After is honoured up to `maxRetryAfterMs`. */
  backoff: BackoffOptions;
  maxRetryAfterMs: number;
  random?: () => number;
}

export const defaultAttemptOptions: AttemptOptions = {
  maxSends: 3,
  backoff: { baseMs: 200, maxMs: 5_000 },
  maxRetryAfterMs: 30_000,
};

/**
 * Creating and executing a payment so that it is never paid twice (docs/decisions/0005-never-pay-twice.md):
 * create is repeated only with the same paymentId, execute is sent again only after a
 * read-back shows the payment still READY, and every lost or garbled answer is settled by
 * reading the payment (spec, Endpoints rule 5). Used by GraphQL and the batch worker alike;
 * what is durable before each call is the caller's business.
 */
export class PaymentAttempts {
  private readonly options: AttemptOptions;
  private readonly random: () => number;

  constructor(
    private readonly client: PayoutClient,
    options: Partial<AttemptOptions> = {},
  ) {
    this.options = { ...defaultAttemptOptions, ...options };
    this.random = this.options.random ?? Math.random;
  }

  /** PUT with the same paymentId until an answer proves something, then read back. */
  create(paymentId: string, payload: PaymentPayload, call?: CallOptions): Promise<CreateOutcome>;
  create(paymentId: string, payload: PaymentPayload, call: CallOptions, throttle: ThrottleMode): Promise<SendOutcome>;
  create(paymentId: string, payload: PaymentPayload, call: CallOptions = {}, throttle: ThrottleMode = 'wait'): Promise<SendOutcome> {
    return traced('payment.create', paymentId, () => this.createUntraced(paymentId, payload, call, throttle));
  }

  private async createUntraced(
    paymentId: string,
    payload: PaymentPayload,
    call: CallOptions,
    throttle: ThrottleMode,
  ): Promise<SendOutcome> {
    let lastError: PayoutError | undefined;
    let reached = false;
    for (let send = 0; send < this.options.maxSends; send++) {
      if (send > 0) {
        await this.pause(send - 1, lastError, call);
        // No write allowed this send: the fence asks (decision 0027); refused, what exists is read back.
        const withheld = await call.fence?.confirm();
        if (withheld !== undefined) break;
      }
      try {
        return fromStatus(await this.client.putPayment(paymentId, payload, call));
      } catch (error) {
        if (!(error instanceof PayoutError)) throw error;
        if (error instanceof PayoutApiError && error.code === 'payout.resource.exists') {
          return this.readExisting(paymentId, payload, error, call);
        }
        if (error instanceof PayoutApiError && error.refused) return { kind: 'not-paid', proof: 'refused', error };
        // Same paymentId next time: an earlier send whose answer was lost is settled then.
        if (throttle === 'rest' && isThrottled(error)) return this.throttled(error);
        lastError = error;
        // An unreachable partner is not asked again within this attempt: the caller waits.
        if (notSent(error)) {
          if (!reached) return { kind: 'unreachable', error };
          break;
        }
        reached = true;
      }
    }
    return this.readExisting(paymentId, payload, lastError!, call);
  }

  /**
   * POST execute of a payment known to be READY. A lost answer is read back; only a
   * payment read as READY is executed again.
   */
  execute(paymentId: string, call?: CallOptions): Promise<Outcome>;
  execute(paymentId: string, call: CallOptions, throttle: ThrottleMode): Promise<Outcome | Throttled>;
  execute(paymentId: string, call: CallOptions = {}, throttle: ThrottleMode = 'wait'): Promise<Outcome | Throttled> {
    return traced('payment.execute', paymentId, () => this.executeUntraced(paymentId, call, throttle));
  }

  private async executeUntraced(paymentId: string, call: CallOptions, throttle: ThrottleMode): Promise<Outcome | Throttled> {
    let lastError: PayoutError | undefined;
    for (let send = 0; send < this.options.maxSends; send++) {
      if (send > 0) {
        await this.pause(send - 1, lastError, call);
        // The payment was just read READY and may not be sent for any more: nothing was sent.
        const withheld = await call.fence?.confirm();
        if (withheld !== undefined) return { kind: 'unreachable', error: withheld };
      }
      try {
        const answer = fromStatus(await this.client.postExecute(paymentId, call));
        if (answer.kind !== 'ready') return answer;
      } catch (error) {
        if (!(error instanceof PayoutError)) throw error;
        if (error instanceof PayoutApiError && error.refused) return { kind: 'not-paid', proof: 'refused', error };
        // Every earlier send was read back as READY, so this one decides: not sent, nothing changed.
        if (notSent(error)) return { kind: 'unreachable', error };
        // Every earlier send was read back as READY: the row rests EXECUTING, read before any execute.
        if (throttle === 'rest' && isThrottled(error)) return this.throttled(error);
        lastError = error;
      }
      const read = await this.read(paymentId, lastError, call);
      if (read.kind !== 'ready') return read;
    }
    // Every read said READY: execute has not taken effect.
    return { kind: 'not-paid', proof: 'ready', error: lastError ?? stillReady(paymentId) };
  }

  /** After a crash between "executing" and its answer: read first, execute only if READY. */
  resumeExecute(paymentId: string, call?: CallOptions): Promise<Outcome>;
  resumeExecute(paymentId: string, call: CallOptions, throttle: ThrottleMode): Promise<Outcome | Throttled>;
  resumeExecute(paymentId: string, call: CallOptions = {}, throttle: ThrottleMode = 'wait'): Promise<Outcome | Throttled> {
    return traced('payment.resume_execute', paymentId, async () => {
      const read = await this.read(paymentId, undefined, call);
      if (read.kind !== 'ready') return read;
      // Read READY: whether it may still be executed is the fence's to say (decision 0027).
      const withheld = await call.fence?.confirm();
      return withheld === undefined ? this.execute(paymentId, call, throttle) : { kind: 'unreachable', error: withheld };
    });
  }

  /**
   * A create whose outcome is unknown, settled by reading only (its sends are spent): the
   * payment as it stands, `not-paid` (absent) when the upstream does not know it, a
   * conflict when the id holds someone else's payment.
   */
  readBackCreate(paymentId: string, payload: PaymentPayload, call: CallOptions = {}): Promise<CreateOutcome> {
    return traced('payment.read_back', paymentId, () =>
      this.readExisting(
        paymentId,
        payload,
        new PaymentOutcomeUnknownError(paymentId, 'create', { cause: new Error('read back after the sends ran out') }),
        call,
      ),
    );
  }

  /**
   * The payment as it stands; READY is reported as such for the caller to decide, and a
   * payment the upstream does not know as `not-paid` (absent).
   */
  read(paymentId: string, cause: PayoutError | undefined, call: CallOptions = {}): Promise<CreateOutcome> {
    return traced('payment.read_back', paymentId, () => this.readUntraced(paymentId, cause, call));
  }

  private async readUntraced(paymentId: string, cause: PayoutError | undefined, call: CallOptions): Promise<CreateOutcome> {
    try {
      return fromStatus(await this.client.getPayment(paymentId, { signal: call.signal }));
    } catch (error) {
      if (!(error instanceof PayoutError)) throw error;
      if (error instanceof PayoutApiError && error.code === 'payout.payment.not-found') {
        return { kind: 'not-paid', proof: 'absent', error };
      }
      if (cause === undefined && notSent(error)) return { kind: 'unreachable', error };
      return { kind: 'unknown', error: new PaymentOutcomeUnknownError(paymentId, 'execute', { cause: cause ?? error }), ...unread(error) };
    }
  }

  /** A create whose answers were lost or that found the id taken: what exists upstream? */
  private async readExisting(paymentId: string, payload: PaymentPayload, cause: PayoutError, call: CallOptions): Promise<CreateOutcome> {
    let existing: Payment;
    try {
      existing = await this.client.getPayment(paymentId, { signal: call.signal });
    } catch (error) {
      if (!(error instanceof PayoutError)) throw error;
      // Not found proves the create never took effect, unless the upstream said it exists.
      if (error instanceof PayoutApiError && error.code === 'payout.payment.not-found' && cause.code !== 'payout.resource.exists') {
        return { kind: 'not-paid', proof: 'absent', error: cause };
      }
      return { kind: 'unknown', error: new PaymentOutcomeUnknownError(paymentId, 'create', { cause }), ...unread(error) };
    }
    const differences = recipientDifferences(payload, existing);
    if (differences.length > 0) {
      // Someone else's payment holds this id: ours was refused, and theirs is not ours to settle.
      return { kind: 'not-paid', proof: 'refused', error: new PaymentConflictError(paymentId, differences) };
    }
    return fromStatus(existing);
  }

  private throttled(error: PayoutApiError): Throttled {
    const hinted = retryAfterMs(error.retryAfter);
    return { kind: 'throttled', error, restMs: hinted === undefined ? undefined : Math.min(hinted, this.options.maxRetryAfterMs) };
  }

  private async pause(retry: number, error: PayoutError | undefined, call: CallOptions): Promise<void> {
    const hinted = error instanceof PayoutApiError ? retryAfterMs(error.retryAfter) : undefined;
    const delay = retryDelay(
      retry,
      this.options.backoff,
      hinted === undefined ? undefined : Math.min(hinted, this.options.maxRetryAfterMs),
      this.random,
    );
    call.onRetry?.(error, delay);
    await sleep(delay);
    call.signal?.throwIfAborted();
  }
}

/**
 * One step of an attempt as a span (when tracing is on), with what it came to: the
 * outcome's kind, and for an outcome without a payment the error's code.
 */
function traced<T extends SendOutcome>(name: string, paymentId: string, step: () => Promise<T>): Promise<T> {
  return inSpan(name, { 'payout.payment_id': paymentId }, step, {
    describe: (outcome) => ({ 'payout.outcome': outcome.kind, ...('error' in outcome ? { 'payout.error_code': outcome.error.code } : {}) }),
  });
}

function isThrottled(error: PayoutError): error is PayoutApiError {
  return error instanceof PayoutApiError && error.httpStatus === 429;
}

/** What a Payment's status proves. CREATED is not yet payable: it counts as not settled. */
function fromStatus(payment: Payment): CreateOutcome {
  switch (payment.status.value) {
    case 'READY':
      return { kind: 'ready', payment };
    case 'COMPLETED':
      return { kind: 'paid', payment };
    case 'IN_PROGRESS':
      return { kind: 'in-progress', payment };
    case 'FAILED':
    case 'EXPIRED':
      return { kind: 'failed', payment };
    case 'CREATED':
      return {
        kind: 'unknown',
        error: new PaymentOutcomeUnknownError(payment.paymentId, 'create', { cause: new Error('the payment is CREATED, not yet READY') }),
      };
  }
}

function unread(readError: PayoutError): { unread?: true } {
  return notSent(readError) ? { unread: true } : {};
}

function stillReady(paymentId: string): PayoutError {
  return new PaymentStillReadyError(paymentId);
}

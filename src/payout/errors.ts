import { utcTimeOn } from '../money/readable-text.ts';
import { GatewayError } from '../lib/gateway-error.ts';
import { transientErrorCodes, type ErrorBody } from './models.ts';

/** Every failure of a Payout API call is one of these, each with a stable `code`. */
export class PayoutError extends GatewayError {
  // Set by each subclass; the base is concrete only so GraphQL can map it as one type.
  declare readonly code: string;
  /** Every one is the partner's answer, or its absence: GraphQL's PAYOUT_ERROR, whatever the code. */
  readonly kind = 'upstream';
  /** True when the same request may succeed if sent again later. */
  declare readonly retryable: boolean;
}

/** The upstream answered with an Error object (any non-2xx). */
export class PayoutApiError extends PayoutError {
  override readonly code: string;
  override readonly retryable: boolean;
  readonly serviceName: string;
  readonly userMessage: string;
  readonly description: string;
  readonly traceId: string;
  readonly dateTime: string;
  readonly details: Record<string, string[]>;

  constructor(
    readonly httpStatus: number,
    body: ErrorBody,
    readonly request: { method: string; path: string },
    /** Seconds or date from a Retry-After header, for 429 and 503. */
    readonly retryAfter?: string,
  ) {
    // What the caller may see: the upstream's own words. Method, path and HTTP status stay
    // in fields for logs, never in the message (they are transport details).
    super(`the Payout API refused the call (${body.errorCode}): ${body.description}`);
    this.name = 'PayoutApiError';
    this.code = body.errorCode;
    this.serviceName = body.serviceName;
    this.userMessage = body.userMessage;
    this.description = body.description;
    this.traceId = body.traceId;
    this.dateTime = body.dateTime;
    this.details = body.cause ?? {};
    // Some codes mean "try later" whatever status the upstream put them under.
    this.retryable = httpStatus >= 500 || httpStatus === 429 || transientErrorCodes.has(body.errorCode);
  }

  /**
   * Proof that the call changed nothing: a 4xx Error object for a request that was
   * processed and refused. A 5xx, a 429 or a "try later" code proves nothing.
   */
  get refused(): boolean {
    return this.httpStatus >= 400 && this.httpStatus < 500 && !this.retryable;
  }
}

export type NetworkPhase = 'connect' | 'headers' | 'body' | 'socket';

/** No answer: refused, reset, dropped or timed out. Whether the call took effect is unknown. */
export class PayoutNetworkError extends PayoutError {
  override readonly retryable = true;
  override readonly code: 'network.error' | 'network.timeout';
  /** True when the request cannot have reached the upstream (connect phase). */
  readonly notSent: boolean;

  constructor(
    readonly phase: NetworkPhase,
    readonly timedOut: boolean,
    readonly request: { method: string; path: string },
    options: { cause: unknown },
  ) {
    super(timedOut ? `the Payout API did not answer in time (${phase})` : `the connection to the Payout API failed (${phase})`, options);
    this.name = 'PayoutNetworkError';
    this.code = timedOut ? 'network.timeout' : 'network.error';
    this.notSent = phase === 'connect';
  }
}

/**
 * Not sent: the partner breaker is open (partner/partner-breaker.ts), so calls wait for its
 * probe to find the partner answering again. Nothing reached the partner.
 */
export class PartnerUnavailableError extends PayoutError {
  override readonly code = 'partner.unavailable';
  override readonly retryable = true;
  constructor(
    readonly reason: string,
    readonly since: Date | null,
  ) {
    // Read by people (the page, the CLI, a refusal): a UTC time in words, not ISO 8601.
    super(`the Payout API is ${reason}${since === null ? '' : ` since ${utcTimeOn(since)}`}: nothing is sent to it until it answers again`);
    this.name = 'PartnerUnavailableError';
  }
}

/**
 * Not sent: the caller may no longer send for this payment (a batch worker whose lease on the
 * row has ended by its own clock, or whose batch was cancelled: decision 0027). Nothing
 * reached the partner.
 */
export class SendWithheldError extends PayoutError {
  override readonly code = 'send.withheld';
  override readonly retryable = true;
  constructor(readonly reason: string) {
    super(`not sent: ${reason}`);
    this.name = 'SendWithheldError';
  }
}

/** True when the call cannot have reached the upstream: it changed nothing there. */
export function notSent(error: unknown): boolean {
  return (
    (error instanceof PayoutNetworkError && error.notSent) || error instanceof PartnerUnavailableError || error instanceof SendWithheldError
  );
}

/**
 * The upstream answered, but not with what the spec promises: a proxy's HTML 502, a body
 * cut short, a shape that does not parse. Whether the call took effect is unknown.
 */
export class PayoutResponseError extends PayoutError {
  override readonly code = 'upstream.invalid-response';
  override readonly retryable: boolean;
  /** What was wrong, with a snippet of the body: for logs. */
  readonly problem: string;
  constructor(
    readonly httpStatus: number,
    readonly request: { method: string; path: string },
    problem: string,
    /** The body was not JSON at all (cut short, an HTML page): asking again may work. */
    unreadable = false,
  ) {
    super('the Payout API answered with something other than what its specification promises');
    this.name = 'PayoutResponseError';
    this.problem = problem;
    this.retryable = httpStatus >= 500 || httpStatus === 429 || unreadable;
  }
}

/** A paymentId already exists upstream with a different amount or recipient. */
export class PaymentConflictError extends PayoutError {
  override readonly code = 'payout.payment.conflict';
  override readonly retryable = false;
  constructor(
    readonly paymentId: string,
    readonly differences: string[],
  ) {
    super(`payment ${paymentId} already exists with a different ${differences.join(', ')}`);
    this.name = 'PaymentConflictError';
  }
}

/** Reading back could not tell whether a create or execute took effect: a person must look. */
export class PaymentOutcomeUnknownError extends PayoutError {
  override readonly code = 'payout.outcome.unknown';
  override readonly retryable = false;
  constructor(
    readonly paymentId: string,
    readonly operation: 'create' | 'execute',
    options: { cause: unknown },
  ) {
    super(`could not tell whether ${operation} of payment ${paymentId} took effect; it is read back again later`, options);
    this.name = 'PaymentOutcomeUnknownError';
  }
}

/**
 * The payment reads READY after its executes were sent: none has landed so far. That is no
 * proof it never will (an execute held up on the way may land later), so nothing is paid
 * again under another paymentId until the payment leaves READY; executing it again, under
 * the same paymentId, is safe.
 */
export class PaymentStillReadyError extends PayoutError {
  override readonly code = 'payout.payment.still-ready';
  override readonly retryable = false;
  constructor(readonly paymentId: string) {
    super(
      `payment ${paymentId} still reads READY: no execute has landed so far, but one sent earlier may still land; read it again before deciding (executing it again under the same paymentId is safe)`,
    );
    this.name = 'PaymentStillReadyError';
  }
}

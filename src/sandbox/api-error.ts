import { randomUUID } from 'node:crypto';
import type { ErrorBody, ErrorCode } from '../payout/models.ts';
import { formatDateTime } from './clock.ts';
import { GatewayError, kindOfHttpStatus, type ErrorKind } from '../lib/gateway-error.ts';

/** HTTP status the sandbox pairs with each error code (the spec leaves the pairing open). */
const statusOf: Record<ErrorCode, number> = {
  'auth.error': 401,
  'auth.failed': 401,
  'auth.forbidden': 403,
  'payout.bad.request': 400,
  'payout.resource.exists': 409,
  'payout.payment.not-found': 404,
  'payout.provider.not-found': 404,
  'validation.error': 400,
  'payout.provider.forbidden': 403,
  'payout.provider.unavailable': 503,
  'payout.billing.declined': 422,
  'payout.billing.timeout': 504,
  'payout.fraud.violated': 403,
  'payout.legislation.prohibited': 403,
  'payout.insufficient-funds': 402,
  'payout.internal.error': 500,
  'internal.error': 500,
};

/** A refusal the routes throw; the server turns it into the spec's Error object. */
export class SandboxApiError extends GatewayError {
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly httpStatus: number;
  readonly userMessage: string;
  constructor(
    readonly errorCode: ErrorCode,
    readonly description: string,
    /** The Error object's `cause`: messages keyed by the offending parameter. */
    readonly details?: Record<string, string[]>,
    options: { httpStatus?: number; userMessage?: string; retryAfterSeconds?: number } = {},
  ) {
    super(description);
    this.code = errorCode;
    this.httpStatus = options.httpStatus ?? statusOf[errorCode];
    this.kind = kindOfHttpStatus(this.httpStatus);
    this.userMessage = options.userMessage ?? defaultUserMessage(this.httpStatus);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
  readonly retryAfterSeconds: number | undefined;

  toBody(now: number): ErrorBody {
    return {
      serviceName: 'payout-sandbox',
      errorCode: this.errorCode,
      userMessage: this.userMessage,
      description: this.description,
      traceId: randomUUID(),
      dateTime: formatDateTime(now),
      ...(this.details === undefined ? {} : { cause: this.details }),
    };
  }
}

function defaultUserMessage(status: number): string {
  if (status === 401 || status === 403) return 'Access denied';
  if (status >= 500) return 'The service is temporarily unable to process the request';
  return 'The request cannot be processed';
}

import { GatewayError } from '../lib/gateway-error.ts';

/**
 * The gateway refuses to move money it was asked to move, before any upstream call.
 *
 * - PAYMENT_CANCELLED: the payment belongs to a batch row that was cancelled after its
 *   create took effect (batch.cancelled-after-create). It stays READY upstream until it
 *   expires there; executing it would pay a row the batch reports as not paid.
 * - SECOND_PERSON_REQUIRED: above PAYMENT_SECOND_PERSON_ABOVE, the key that executes a
 *   payment must not be the key that created it (docs/api/graphql/access.md).
 *   A one-step create+execute above it creates the payment and stops there.
 * - PAYEE_ACCOUNT_CHANGED: the payment's payee was last paid to another account (its mark
 *   at create, payees/payee-marks.ts): executed only when the executor includes it
 *   (includeChangedAccount), as a payroll row held for a changed account is paid only when
 *   the approver includes it. A one-step create+execute creates the payment and stops there.
 */
export const paymentRefusalCodes = ['PAYMENT_CANCELLED', 'SECOND_PERSON_REQUIRED', 'PAYEE_ACCOUNT_CHANGED'] as const;
export type PaymentRefusalCode = (typeof paymentRefusalCodes)[number];

export class PaymentRefusedError extends GatewayError {
  /** Each is a no to this caller now, not a mistake in the request: another key, or includeChangedAccount, may do it. */
  readonly kind = 'state';
  constructor(
    readonly code: PaymentRefusalCode,
    message: string,
    /** The payment concerned: after a create refused its execute, the one now READY (for a second key, or an executor who includes its changed account). */
    readonly paymentId: string,
  ) {
    super(message);
    this.name = 'PaymentRefusedError';
  }
}

/**
 * The gateway refuses to move money it was asked to move, before any upstream call.
 *
 * - PAYMENT_CANCELLED: the payment belongs to a batch row that was cancelled after its
 *   create took effect (batch.cancelled-after-create). It stays READY upstream until it
 *   expires there; executing it would pay a row the batch reports as not paid.
 * - SECOND_PERSON_REQUIRED: above PAYMENT_SECOND_PERSON_ABOVE, the key that executes a
 *   payment must not be the key that created it (docs/api/graphql.md "Access").
 *   A one-step create+execute above it creates the payment and stops there.
 */
export const paymentRefusalCodes = ['PAYMENT_CANCELLED', 'SECOND_PERSON_REQUIRED'] as const;
export type PaymentRefusalCode = (typeof paymentRefusalCodes)[number];

export class PaymentRefusedError extends Error {
  constructor(
    readonly code: PaymentRefusalCode,
    message: string,
    /** The payment concerned: for SECOND_PERSON_REQUIRED after a create, the one now READY for a second key. */
    readonly paymentId: string,
  ) {
    super(message);
    this.name = 'PaymentRefusedError';
  }
}

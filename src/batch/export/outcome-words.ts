import { BatchItemStatus } from '../../db/generated/enums.ts';

/**
 * A result row's outcome in words, for the person who opens results.csv in a spreadsheet
 * (issue 38): the status and error_code columns keep their codes for tools, and this column
 * says what they mean ("not paid: the recipient's bank or the provider declined it").
 */
const statusWords: Record<BatchItemStatus, string> = {
  PENDING: 'waiting to be sent',
  CREATING: 'being sent',
  READY: 'created, about to be executed',
  EXECUTING: 'being executed',
  IN_PROGRESS: 'executed; the provider is paying it',
  COMPLETED: 'paid',
  FAILED: 'not paid',
  EXPIRED: 'not paid: not executed in time',
  CANCELLED: 'not paid: cancelled',
  NEEDS_REVIEW: 'outcome unknown: to be checked with the partner',
  INVALID: 'not paid: failed validation',
  DUPLICATE: 'held: not paid unless the approver includes it',
};

/** The partner's reasons a payment failed (the spec's StatusErrorCode), in words. */
const failureWords: Readonly<Record<string, string>> = {
  INTERNAL_ERROR: 'the partner or the provider failed internally',
  INSUFFICIENT_FUNDS: 'the balance did not cover it and its commission',
  BILLING_DECLINED: 'the recipient’s bank or the provider declined it',
  FRAUD_SUSPECTED: 'stopped by the partner’s fraud checks',
  LIMIT_ERROR: 'over a provider or recipient limit',
};

export function outcomeWords(status: BatchItemStatus, errorCode: string | null): string {
  const words = statusWords[status];
  const why = status === BatchItemStatus.FAILED && errorCode !== null ? failureWords[errorCode] : undefined;
  return why === undefined ? words : `${words}: ${why}`;
}

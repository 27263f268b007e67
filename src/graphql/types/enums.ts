import { batchErrorCodes, batchErrorMeanings } from '../../batch/index.ts';
import { actionScopes, mayDo, roles, type Action, type Role } from '../../auth/roles.ts';
import { TrackedStatus } from '../../db/generated/enums.ts';
import { auditActions, type AuditAction } from '../../audit/audit.ts';
import { paymentRefusalCodes, type PaymentRefusalCode } from '../../payments/payment-refusal.ts';
import { statusSources, type StatusSource } from '../../payments/payment-records.ts';
import {
  currencies,
  errorCodes,
  providerCodes,
  statusCodes,
  statusErrorCodes,
  type ErrorCode as UpstreamErrorCode,
  type StatusCode,
  type StatusErrorCode,
} from '../../payout/models.ts';
import { periodFields, type PeriodField } from '../../reconciliation/period.ts';
import { runTriggers, type RunTrigger } from '../../reconciliation/reconciliation-service.ts';
import { runPhases, type RunPhase } from '../../reconciliation/run-lease.ts';
import { eventSubscriptionErrorMeanings } from '../../outbound/index.ts';
import { apiKeyErrorMeanings } from '../../auth/api-key-error.ts';
import { builder } from '../builder.ts';

/** `bank-card-russia` -> `BANK_CARD_RUSSIA`; `payout.resource.exists` -> `PAYOUT_RESOURCE_EXISTS`. */
export const enumName = (code: string) =>
  code
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .replace(/[.-]/g, '_')
    .toUpperCase();

const valuesOf = <T extends string>(codes: readonly T[], describe?: (code: T) => string) =>
  Object.fromEntries(codes.map((code) => [enumName(code), { value: code, description: describe?.(code) }])) as Record<
    string,
    { value: T; description?: string }
  >;

/** Values from a table of meanings: every code of the list must have one (the Record's keys). */
const describedValues = <T extends string>(codes: readonly T[], meanings: Record<T, string>) => valuesOf(codes, (code) => meanings[code]);

export const CurrencyEnum = builder.enumType('Currency', {
  description: 'ISO 4217 currency code of an amount.',
  values: valuesOf(currencies, (code) => `ISO 4217 ${code}.`),
});

export const ProviderCodeEnum = builder.enumType('ProviderCode', {
  description: 'Payout provider; each value stands for the upstream code in its description.',
  values: valuesOf(providerCodes, (code) => `Upstream code ${code}`),
});

const upstreamStatusMeanings: Record<StatusCode, string> = {
  CREATED: 'Accepted by the upstream, not yet ready to execute.',
  READY: 'Created and checked; waits for executePayment (or expires at expiresAt).',
  EXPIRED: 'Final: not executed in time; nothing was paid.',
  IN_PROGRESS: 'Executed; the provider is paying it.',
  FAILED: 'Final: the provider did not pay it (see errorCode).',
  COMPLETED: 'Final: paid.',
};

export const PaymentStatusEnum = builder.enumType('PaymentStatus', {
  description: 'The upstream payment status (the spec’s StatusCode).',
  values: describedValues(statusCodes, upstreamStatusMeanings),
});

const paymentErrorMeanings: Record<StatusErrorCode, string> = {
  INTERNAL_ERROR: 'The upstream or provider failed internally.',
  INSUFFICIENT_FUNDS: 'The payer’s balance did not cover the payment and its commission.',
  BILLING_DECLINED: 'The recipient’s bank or the provider declined it.',
  FRAUD_SUSPECTED: 'Stopped by the upstream’s fraud checks.',
  LIMIT_ERROR: 'Over a provider or recipient limit.',
  EXPIRED: 'Not executed before its expiry.',
};

export const PaymentErrorCodeEnum = builder.enumType('PaymentErrorCode', {
  description: 'Why a payment failed or expired (the spec’s StatusErrorCode).',
  values: describedValues(statusErrorCodes, paymentErrorMeanings),
});

const trackedStatusMeanings: Record<TrackedStatus, string> = {
  ...upstreamStatusMeanings,
  PENDING: 'The create was sent (or is about to be); the upstream has not confirmed it yet.',
  REJECTED: 'Final: the upstream refused the create; no payment exists there.',
  UNKNOWN: 'An answer was lost and reading back could not settle it: a person must look.',
};

export const TrackingStatusEnum = builder.enumType('TrackingStatus', {
  description:
    'The gateway’s own record: the upstream status, or PENDING (create sent, not confirmed), REJECTED (the upstream refused the create; nothing exists there) or UNKNOWN (an answer was lost and reading back could not settle it; a person must look).',
  values: Object.fromEntries(
    Object.values(TrackedStatus).map((status) => [status, { value: status, description: trackedStatusMeanings[status] }]),
  ) as Record<TrackedStatus, { value: TrackedStatus; description: string }>,
});

/** From the rule table (auth/roles.ts): every query, and the mutations the role may call. */
const roleMeaning = (role: Role) => {
  const may = (Object.keys(actionScopes) as Action[]).filter((action) => mayDo(role, action));
  const reads = role === 'admin' ? 'Every query, the audit trail included' : 'Every query but auditEvents';
  return may.length === 0 ? `${reads}; no mutation.` : `${reads}; mutations: ${may.join(', ')}.`;
};

export const RoleEnum = builder.enumType('Role', {
  description: 'What an API key may do (docs/api/graphql/access.md).',
  values: valuesOf(roles, roleMeaning),
});

const auditActionMeanings: Record<AuditAction, string> = {
  'batch.approve': 'A batch was approved (approveBatch, or the CLI).',
  'batch.cancel': 'A batch was cancelled.',
  'batch.retry': 'Failed rows of a batch were sent to be paid again.',
  'batch.import.forced': 'A file whose exact bytes were imported before was imported again with force.',
  'batch.discard': 'An unapproved batch was discarded (cancelled before approval).',
  'batch.dismiss': 'A batch that paid nothing (rejected, or discarded) was taken off the batch list (dismissBatch); it is kept.',
  'batch.pause': 'A running batch was paused, by a person or for lack of funds.',
  'batch.resume': 'A paused batch was resumed.',
  'batch.reschedule': 'A scheduled batch was given another time to pay (rescheduleBatch); detail has the old and new time.',
  'batch.forecast-short':
    'A scheduled batch’s forecast, read ahead of its time, found the balance short (detail: the shortfall); not a failure.',
  'batch.review': 'The NEEDS_REVIEW rows of a batch were read again (reviewBatchItems).',
  'batch.item.mark': 'A person marked a NEEDS_REVIEW row (markBatchItem).',
  'payment.cancel': 'A payment of a cancelled batch row was left unexecuted.',
  'payment.execute': 'A single payment was executed.',
  'reconciliation.start': 'A reconciliation run was started.',
  'reconciliation.repair': 'A reconciliation took the upstream’s final status for a payment.',
  'events.subscribe': 'An admin subscribed an endpoint to outbound events.',
  'events.update': 'An admin changed an event subscription (its URL, types, description, or turned it on or off).',
  'events.rotate': 'An admin rotated an event subscription’s signing secret.',
  'events.delete': 'An admin deleted an event subscription.',
  'events.replay': 'An admin had every event since a time delivered again to a subscription.',
  'events.resend': 'An admin sent one event again to a subscription.',
  'events.disable': 'A subscription was turned off after failing for EVENT_RETRY_FOR_MS.',
  'api-key.create': 'An admin created an API key (createApiKey); detail has its id, name, role and expiry, never its secret.',
  'api-key.revoke': 'An admin revoked an API key (revokeApiKey): it was refused from then on, on every process.',
};

export const AuditActionEnum = builder.enumType('AuditAction', {
  description: 'What an audit event records; the value stands for the stored action in its name (BATCH_APPROVE is batch.approve).',
  values: describedValues(auditActions, auditActionMeanings),
});

const phaseMeanings: Record<RunPhase, string> = {
  reading: 'Each day of the period (and a day either side) is read from the upstream’s list.',
  confirming: 'Missing and status-differing payments are read one by one.',
  comparing: 'Both sides are compared and the discrepancies written.',
  repairing: 'Where the upstream is final and the gateway is not, the gateway takes the upstream’s status.',
  done: 'Totals and counts are recorded; the run is finished (see status).',
};

export const ReconciliationPhaseEnum = builder.enumType('ReconciliationPhase', {
  description: 'Where a reconciliation run is, in order.',
  values: describedValues(runPhases, phaseMeanings),
});

const triggerMeanings: Record<RunTrigger, string> = {
  cli: 'The command line (payout reconcile): startReconciliation sent by the payout CLI, as it says of itself (x-payout-client: cli); the key is what is authenticated.',
  graphql: 'The startReconciliation mutation: the page or the API.',
  schedule: 'The daily schedule (RECONCILE_DAILY_AT).',
};

export const ReconciliationTriggerEnum = builder.enumType('ReconciliationTrigger', {
  description: 'Who started a reconciliation run.',
  values: describedValues(runTriggers, triggerMeanings),
});

const sourceMeanings: Record<StatusSource, string> = {
  request: 'The gateway recorded the request before sending the create (PENDING).',
  create: 'The upstream’s answer to the create.',
  execute: 'The upstream’s answer to the execute.',
  read: 'A read of the payment (payment query, CLI, batch worker).',
  webhook: 'A status webhook from the upstream.',
  'read-back': 'The read-back of a payment whose answer was lost or unsettled.',
  reconcile: 'A reconciliation repaired it from the upstream’s list.',
};

export const StatusSourceEnum = builder.enumType('StatusSource', {
  description: 'How the gateway learned a status.',
  values: describedValues(statusSources, sourceMeanings),
});

const periodFieldMeanings: Record<PeriodField, string> = {
  from: 'The `from` argument.',
  to: 'The `to` argument.',
  timeZone: 'The time zone the period is read in (RECONCILE_TIME_ZONE).',
};

export const PeriodFieldEnum = builder.enumType('ReconciliationPeriodField', {
  description: 'Which part of a reconciliation period is refused.',
  values: describedValues(periodFields, periodFieldMeanings),
});

/** Codes of the client itself, next to the upstream's Error codes. */
export const clientErrorCodes = [
  'network.error',
  'network.timeout',
  'upstream.invalid-response',
  'payout.payment.conflict',
  'payout.outcome.unknown',
  'payout.payment.still-ready',
  'partner.unavailable',
] as const;

type ClientErrorCode = (typeof clientErrorCodes)[number];

const payoutErrorMeanings: Record<UpstreamErrorCode | ClientErrorCode | 'other', string> = {
  'auth.error': 'Upstream auth.error: the gateway’s credentials could not be checked.',
  'auth.failed': 'Upstream auth.failed: the gateway’s credentials were refused (an operator must fix PAYOUT_* settings).',
  'auth.forbidden': 'Upstream auth.forbidden: the gateway’s account may not do this.',
  'payout.bad.request': 'Upstream payout.bad.request: the upstream refused the request as malformed.',
  'payout.resource.exists': 'Upstream payout.resource.exists: a payment with this paymentId exists with other data.',
  'payout.payment.not-found': 'Upstream payout.payment.not-found: no payment with this paymentId.',
  'payout.provider.not-found': 'Upstream payout.provider.not-found: no such provider.',
  'validation.error': 'Upstream validation.error: a parameter is invalid (see causes).',
  'payout.provider.forbidden': 'Upstream payout.provider.forbidden: the account may not use this provider.',
  'payout.provider.unavailable': 'Upstream payout.provider.unavailable: the provider is down; retryable.',
  'payout.billing.declined': 'Upstream payout.billing.declined: billing declined the payment.',
  'payout.billing.timeout': 'Upstream payout.billing.timeout: billing did not answer in time.',
  'payout.fraud.violated': 'Upstream payout.fraud.violated: stopped by fraud checks.',
  'payout.legislation.prohibited': 'Upstream payout.legislation.prohibited: the law forbids this payment.',
  'payout.insufficient-funds': 'Upstream payout.insufficient-funds: the balance does not cover it.',
  'payout.internal.error': 'Upstream payout.internal.error: the payout service failed internally.',
  'internal.error': 'Upstream internal.error: the upstream failed internally.',
  'network.error': 'The gateway could not reach the Payout API.',
  'network.timeout': 'The Payout API did not answer in time; the outcome may be unknown.',
  'upstream.invalid-response': 'The Payout API answered something this gateway cannot read.',
  'payout.payment.conflict': 'The upstream holds a payment under this paymentId with different data.',
  'payout.outcome.unknown': 'Whether the payment was made could not be settled: a person must look.',
  'payout.payment.still-ready': 'The execute was accepted but the payment is still READY.',
  'partner.unavailable': 'The partner breaker is open (the Payout API fails or throttles): nothing was sent; retry later.',
  other: 'A code this version of the gateway does not know; upstreamCode has it as sent.',
};

export const PayoutErrorCodeEnum = builder.enumType('PayoutErrorCode', {
  description: 'The upstream Error code, a code of the gateway’s client, or OTHER for a code this version does not know.',
  values: describedValues([...errorCodes, ...clientErrorCodes, 'other'] as const, payoutErrorMeanings),
});

const refusalMeanings: Record<PaymentRefusalCode, string> = {
  PAYMENT_CANCELLED: 'Its batch row was cancelled after the create: the gateway will not execute the payment.',
  SECOND_PERSON_REQUIRED:
    'A key other than the creator’s (above PAYMENT_SECOND_PERSON_ABOVE), uploader’s or approver’s must do this (maker-checker).',
  PAYEE_ACCOUNT_CHANGED:
    'The payment’s payee was last paid to another account: it is executed only when the executor includes it (includeChangedAccount: true).',
};

/**
 * The one `code` of every typed mutation error (the Problem interface): the PayoutErrorCode
 * values, the batch and review refusals (BatchError), the payment refusals and BAD_USER_INPUT.
 * The names are the vocabulary of docs/api/error-codes.md, the same as `extensions.code` where a
 * query fails for the same reason. Internal value = name.
 */
const problemMeanings: Record<string, string> = {
  ...Object.fromEntries(Object.entries(payoutErrorMeanings).map(([code, meaning]) => [enumName(code), meaning])),
  ...Object.fromEntries(batchErrorCodes.map((code) => [enumName(code), batchErrorMeanings[code]])),
  ...Object.fromEntries(paymentRefusalCodes.map((code) => [code, refusalMeanings[code]])),
  ...eventSubscriptionErrorMeanings,
  ...apiKeyErrorMeanings,
  BAD_USER_INPUT: 'The input was refused before anything was sent (see the error’s fields).',
};

/** Every ErrorCode name: a refusal whose own code is one of them answers with it (error-codes.ts problemCode). */
export const problemCodeNames: ReadonlySet<string> = new Set(Object.keys(problemMeanings));

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'Why a mutation was refused: the `code` of every Problem. Stable; see docs/api/error-codes.md.',
  values: Object.fromEntries(Object.entries(problemMeanings).map(([name, description]) => [name, { value: name, description }])),
});

const knownPayoutCodes = new Set<string>([...errorCodes, ...clientErrorCodes]);
export const payoutErrorCode = (code: string) => (knownPayoutCodes.has(code) ? code : 'other');

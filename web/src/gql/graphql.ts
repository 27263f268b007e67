/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** A new API key. */
export type ApiKeyInput = {
  /** When it stops working by itself; omitted: never. */
  expiresAt?: unknown;
  /** A letter, then up to 39 letters, digits, dots, dashes or underscores: the identity it acts as (`key:NAME`). */
  name: string;
  /** The person it is issued to (`user:SUB`, one of `people`): it then acts as that person, one identity with their sign-in. Omitted: it acts as `key:NAME`. */
  owner?: string | null | undefined;
  /** What it may do. */
  role: Role;
};

/** Something a person can do to a batch in its state (src/batch/states/batch-actions.ts, from the lifecycle table). */
export type BatchAction =
  /** approveBatch: it passed validation. */
  | 'APPROVE'
  /** approveBatch with validRowsOnly: refused for row errors only (the file itself has none), and a row is valid; only the valid rows are paid. */
  | 'APPROVE_VALID_ROWS'
  /** cancelBatch of an approved batch: nothing new is sent; what is in flight ends and is tracked. */
  | 'CANCEL'
  /** cancelBatch of a batch never approved (being read, or one an approval could start): nothing was sent. */
  | 'DISCARD'
  /** dismissBatch: it paid nothing and never will. */
  | 'DISMISS'
  /** pauseBatch: running. */
  | 'PAUSE'
  /** rescheduleBatch: scheduled, not yet released. */
  | 'RESCHEDULE'
  /** resumeBatch: paused (by a person or for funds). */
  | 'RESUME'
  /** retryFailedItems: finished with FAILED or EXPIRED rows whose recipient details are still held, which are paid again. */
  | 'RETRY_FAILED';

/** Follows the row’s payment; NEEDS_REVIEW is an outcome reading back could not settle (never paid again automatically); INVALID rows failed validation; DUPLICATE rows are held: they repeat a payment (same payee, amount and reference) and are paid only if the approver includes held rows. */
export type BatchItemStatus =
  /** Not paid: its batch was cancelled, or a person marked it DO_NOT_PAY. */
  | 'CANCELLED'
  /** Final: paid. */
  | 'COMPLETED'
  /** The create is being sent. */
  | 'CREATING'
  /** Held: repeats a payment (same payee, amount and reference; repeats names it), paid only if the approver includes held rows (approveBatch includeHeld); or its payee’s account changed since the last payment (payeeMark ACCOUNT_CHANGED), paid only with approveBatch includeChangedAccounts. A row held for both needs both. */
  | 'DUPLICATE'
  /** The execute is being sent. */
  | 'EXECUTING'
  /** Not executed in time upstream; retryFailedItems pays it again. */
  | 'EXPIRED'
  /** Not paid (see errorCode); retryFailedItems pays it again under a new paymentId. */
  | 'FAILED'
  /** Failed validation; never paid. */
  | 'INVALID'
  /** Executed; the provider is paying it. */
  | 'IN_PROGRESS'
  /** Its outcome could not be settled by reading back: never paid again automatically (reviewBatchItems, markBatchItem). */
  | 'NEEDS_REVIEW'
  /** Valid, waiting for approval or for a worker. */
  | 'PENDING'
  /** Created upstream, about to be executed. */
  | 'READY';

/** Where a batch is in its life: VALIDATING → VALIDATED or REJECTED → RUNNING (⇄ PAUSED) → COMPLETED, COMPLETED_WITH_FAILURES or CANCELLED. */
export type BatchStatus =
  /** Cancelled: rows not yet sent are not paid; rows already sent finish and are tracked. */
  | 'CANCELLED'
  /** Final: every paid row COMPLETED. */
  | 'COMPLETED'
  /** Finished with some rows FAILED or EXPIRED (retryFailedItems pays them again) or NEEDS_REVIEW. */
  | 'COMPLETED_WITH_FAILURES'
  /** Approved, sending nothing until resumed: paused by a person, or for lack of funds (see waiting). */
  | 'PAUSED'
  /** The file has errors: fix it, or approve with validRowsOnly to pay only its valid rows. */
  | 'REJECTED'
  /** Approved: rows are being paid. */
  | 'RUNNING'
  /** Approved to pay at payAt: nothing is sent until then; it starts by itself (rescheduleBatch moves it, cancelBatch cancels it). */
  | 'SCHEDULED'
  /** Checked, waiting for approval (approveBatch). */
  | 'VALIDATED'
  /** The file is being read and checked. */
  | 'VALIDATING';

/** ISO 4217 currency code of an amount. */
export type Currency =
  /** ISO 4217 RUB. */
  | 'RUB';

/** What differs; docs/internals/architecture/reconciliation.md has the rule of each. */
export type DiscrepancyCode =
  /** The amount or currency differs */
  | 'AMOUNT_DIFFERS'
  /** The commission differs */
  | 'COMMISSION_DIFFERS'
  /** The gateway recorded a payment the upstream does not have */
  | 'MISSING_UPSTREAM'
  /** Still not final past the stuck age */
  | 'NOT_FINAL'
  /** The provider or recipient differs (compared masked) */
  | 'RECIPIENT_DIFFERS'
  /** The status differs */
  | 'STATUS_DIFFERS'
  /** The upstream has a payment the gateway never recorded */
  | 'UNKNOWN_TO_GATEWAY';

/** OPEN: for a person to decide. REPAIRED: the upstream was final and the gateway was not; the gateway took its status. */
export type DiscrepancyResolution =
  /** For a person to decide. */
  | 'OPEN'
  /** The upstream was final and the gateway was not: the gateway took the upstream’s status. */
  | 'REPAIRED';

/** Why a mutation was refused: the `code` of every Problem. Stable; see docs/api/error-codes.md. */
export type ErrorCode =
  /** This gateway has no GATEWAY_API_KEYS and no GATEWAY_OIDC_ISSUER: it serves anonymous local use, which takes no keys. Set GATEWAY_API_KEYS with an admin key, or single sign-on, first. */
  | 'API_KEYS_NEED_AN_ADMIN_KEY'
  /** expiresAt is in the past. */
  | 'API_KEY_EXPIRY_INVALID'
  /** A key name is a letter, then up to 39 letters, digits, dots, dashes or underscores. */
  | 'API_KEY_NAME_INVALID'
  /** Another key that is not revoked, or a key of GATEWAY_API_KEYS, has this name: a name is one identity, so choose another or revoke the other first. */
  | 'API_KEY_NAME_TAKEN'
  /** No API key has this id. */
  | 'API_KEY_NOT_FOUND'
  /** The owner is no person the identity provider has named here: they must sign in (or call with a token) once before a key is issued to them. */
  | 'API_KEY_OWNER_UNKNOWN'
  /** Upstream auth.error: the gateway’s credentials could not be checked. */
  | 'AUTH_ERROR'
  /** Upstream auth.failed: the gateway’s credentials were refused (an operator must fix PAYOUT_* settings). */
  | 'AUTH_FAILED'
  /** Upstream auth.forbidden: the gateway’s account may not do this. */
  | 'AUTH_FORBIDDEN'
  /** The input was refused before anything was sent (see the error’s fields). */
  | 'BAD_USER_INPUT'
  /** agree takes the other approvers’ choice: it is given alone, without payAt, includeHeld, includeChangedAccounts or newRound. */
  | 'BATCH_AGREE_WITH_CHOICE'
  /** Other people approved another choice (rows or time to pay) that awaits more approvals: agree to it, or start a new round (newRound) that replaces theirs. */
  | 'BATCH_APPROVAL_DIFFERS'
  /** The balance could not be read; approve later, or with ignoreBalance. */
  | 'BATCH_BALANCE_UNKNOWN'
  /** The batch or row changed while the step ran; read it and try again. */
  | 'BATCH_CHANGED'
  /** The batch was approved by more than one person for its time: an earlier time needs their approvals again. */
  | 'BATCH_EARLIER_NEEDS_APPROVALS'
  /** The file itself has errors (not its rows): it cannot be approved. */
  | 'BATCH_FILE_ERRORS'
  /** The balance does not cover this batch, the batches already approved and their commission; top up, or approve with ignoreBalance. */
  | 'BATCH_INSUFFICIENT_FUNDS'
  /** Rows repeat a batch approved since the import; they are now held. Approve again. */
  | 'BATCH_NEW_DUPLICATES'
  /** No approval of the batch awaits another: approve with your own choice. */
  | 'BATCH_NOTHING_TO_AGREE'
  /** No FAILED or EXPIRED row can be paid again. */
  | 'BATCH_NOTHING_TO_RETRY'
  /** The batch is in a state that cannot be approved. */
  | 'BATCH_NOT_APPROVABLE'
  /** The batch is in a state that cannot be cancelled. */
  | 'BATCH_NOT_CANCELLABLE'
  /** Only a batch that paid nothing (rejected, or discarded before approval) can be dismissed from the list. */
  | 'BATCH_NOT_DISMISSABLE'
  /** No batch has this id. */
  | 'BATCH_NOT_FOUND'
  /** Only a RUNNING batch can be paused. */
  | 'BATCH_NOT_PAUSABLE'
  /** Only a PAUSED batch can be resumed. */
  | 'BATCH_NOT_RESUMABLE'
  /** The batch is still running, or in a state whose rows are not paid again. */
  | 'BATCH_NOT_RETRYABLE'
  /** Only a SCHEDULED batch can be rescheduled. */
  | 'BATCH_NOT_SCHEDULED'
  /** No row of the batch can be paid. */
  | 'BATCH_NO_VALID_ROWS'
  /** The time to pay is not a date and time. */
  | 'BATCH_PAY_AT_INVALID'
  /** The time to pay has passed: approve without one to pay now, or give a later time. */
  | 'BATCH_PAY_AT_PAST'
  /** The time to pay is further ahead than SCHEDULE_HORIZON_DAYS allows. */
  | 'BATCH_PAY_AT_TOO_FAR'
  /** The batch has errors; fix the file, or approve with validRowsOnly to pay only its valid rows. */
  | 'BATCH_REJECTED'
  /** Maker-checker: the key that uploaded the batch may not approve it. */
  | 'BATCH_SAME_PERSON'
  /** The endpoint URL breaks the rules for receivers: https, a public address (EVENTS_ALLOW_LOCAL_ENDPOINTS allows loopback for development). */
  | 'EVENT_ENDPOINT_REFUSED'
  /** No event or list has this id, or it was never sent to this subscription (it will be, in its order), or longer ago than the delivery log keeps. */
  | 'EVENT_NOT_FOUND'
  /** eventsPerRequest is not a whole number from 1 to 100. */
  | 'EVENT_REQUEST_SIZE_INVALID'
  /** No event subscription has this id. */
  | 'EVENT_SUBSCRIPTION_NOT_FOUND'
  /** A named event type does not exist (eventTypes lists them). */
  | 'EVENT_TYPE_UNKNOWN'
  /** Upstream internal.error: the upstream failed internally. */
  | 'INTERNAL_ERROR'
  /** The gateway could not reach the Payout API. */
  | 'NETWORK_ERROR'
  /** The Payout API did not answer in time; the outcome may be unknown. */
  | 'NETWORK_TIMEOUT'
  /** A code this version of the gateway does not know; upstreamCode has it as sent. */
  | 'OTHER'
  /** The partner breaker is open (the Payout API fails or throttles): nothing was sent; retry later. */
  | 'PARTNER_UNAVAILABLE'
  /** The payment’s payee was last paid to another account: it is executed only when the executor includes it (includeChangedAccount: true). */
  | 'PAYEE_ACCOUNT_CHANGED'
  /** Its batch row was cancelled after the create: the gateway will not execute the payment. */
  | 'PAYMENT_CANCELLED'
  /** Upstream payout.bad.request: the upstream refused the request as malformed. */
  | 'PAYOUT_BAD_REQUEST'
  /** Upstream payout.billing.declined: billing declined the payment. */
  | 'PAYOUT_BILLING_DECLINED'
  /** Upstream payout.billing.timeout: billing did not answer in time. */
  | 'PAYOUT_BILLING_TIMEOUT'
  /** Upstream payout.fraud.violated: stopped by fraud checks. */
  | 'PAYOUT_FRAUD_VIOLATED'
  /** Upstream payout.insufficient-funds: the balance does not cover it. */
  | 'PAYOUT_INSUFFICIENT_FUNDS'
  /** Upstream payout.internal.error: the payout service failed internally. */
  | 'PAYOUT_INTERNAL_ERROR'
  /** Upstream payout.legislation.prohibited: the law forbids this payment. */
  | 'PAYOUT_LEGISLATION_PROHIBITED'
  /** Whether the payment was made could not be settled: a person must look. */
  | 'PAYOUT_OUTCOME_UNKNOWN'
  /** The upstream holds a payment under this paymentId with different data. */
  | 'PAYOUT_PAYMENT_CONFLICT'
  /** Upstream payout.payment.not-found: no payment with this paymentId. */
  | 'PAYOUT_PAYMENT_NOT_FOUND'
  /** The execute was accepted but the payment is still READY. */
  | 'PAYOUT_PAYMENT_STILL_READY'
  /** Upstream payout.provider.forbidden: the account may not use this provider. */
  | 'PAYOUT_PROVIDER_FORBIDDEN'
  /** Upstream payout.provider.not-found: no such provider. */
  | 'PAYOUT_PROVIDER_NOT_FOUND'
  /** Upstream payout.provider.unavailable: the provider is down; retryable. */
  | 'PAYOUT_PROVIDER_UNAVAILABLE'
  /** Upstream payout.resource.exists: a payment with this paymentId exists with other data. */
  | 'PAYOUT_RESOURCE_EXISTS'
  /** The batch was cancelled: its rows are not paid again. */
  | 'REVIEW_BATCH_CANCELLED'
  /** The row’s card data is past CARD_DATA_RETENTION_DAYS: upload the row again to pay it. */
  | 'REVIEW_CARD_DATA_GONE'
  /** The partner says the payment is IN_PROGRESS: check again later. */
  | 'REVIEW_IN_PROGRESS_UPSTREAM'
  /** The row is not NEEDS_REVIEW. */
  | 'REVIEW_NOT_UNDER_REVIEW'
  /** The batch has no row on this line. */
  | 'REVIEW_NO_SUCH_ROW'
  /** The partner says the payment is COMPLETED: it is not paid again. */
  | 'REVIEW_PAID_UPSTREAM'
  /** The partner says the payment is READY: an execute sent earlier may still land, so it is not paid again until the partner executes or expires it. */
  | 'REVIEW_READY_UPSTREAM'
  /** Marking a row needs a reason. */
  | 'REVIEW_REASON_REQUIRED'
  /** The reason is too long. */
  | 'REVIEW_REASON_TOO_LONG'
  /** The payment could not be read now; it is paid again only once a read shows it unpaid. */
  | 'REVIEW_UNREADABLE'
  /** A key other than the creator’s (above PAYMENT_SECOND_PERSON_ABOVE), uploader’s or approver’s must do this (maker-checker). */
  | 'SECOND_PERSON_REQUIRED'
  /** The Payout API answered something this gateway cannot read. */
  | 'UPSTREAM_INVALID_RESPONSE'
  /** Upstream validation.error: a parameter is invalid (see causes). */
  | 'VALIDATION_ERROR';

/** What to change; omitted fields stay. */
export type EventSubscriptionChange = {
  /** A new description. */
  description?: string | null | undefined;
  /** false stops deliveries (events wait); true starts them again, the waiting event first. */
  enabled?: boolean | null | undefined;
  /** Events per request from now on, 1 to 100. */
  eventsPerRequest?: number | null | undefined;
  /** New event types; empty: every type. */
  types?: Array<string> | null | undefined;
  /** A new endpoint (the same rules). */
  url?: string | null | undefined;
};

/** A receiver of outbound events. */
export type EventSubscriptionInput = {
  /** What it is for, for the next admin. */
  description?: string | null | undefined;
  /** 1 (the default): one event per request. 2 to 100: lists of up to this many, for a receiver that takes them (docs/api/events.md). */
  eventsPerRequest?: number | null | undefined;
  /** Event types to deliver (eventTypes lists them); omitted or empty: every type. */
  types?: Array<string> | null | undefined;
  /** An https URL resolving to public addresses (EVENTS_ALLOW_LOCAL_ENDPOINTS allows http to localhost for development). */
  url: string;
};

/** Why an event subscription is off. */
export type EventSubscriptionOffReason =
  /** Its head had no 2xx answer for EVENT_RETRY_FOR_MS: the deliverer turned it off. */
  | 'FAILING'
  /** An admin turned it off (offBy says who). */
  | 'PERSON';

/** Which side holds a final status (COMPLETED, FAILED, EXPIRED). */
export type FinalSide =
  /** Both are final, and they differ. */
  | 'BOTH'
  /** Only the gateway’s status is final. */
  | 'GATEWAY'
  /** Neither is final yet. */
  | 'NEITHER'
  /** Only the upstream’s status is final. */
  | 'UPSTREAM';

/** Why a held (DUPLICATE) row is held; a row may be held for both. */
export type HoldReason =
  /** Its payee’s account changed since the last payment to them (payeeMark ACCOUNT_CHANGED): paid only with approveBatch includeChangedAccounts. */
  | 'ACCOUNT_CHANGED'
  /** It repeats a payment (same payee, amount and reference): paid only with approveBatch includeHeld. */
  | 'REPEAT';

/** What an identity is. */
export type IdentityKind =
  /** An API key of its own (`key:NAME`, or `key:` and a fingerprint). */
  | 'KEY'
  /** Key-less local use, the CLI without a key, or the gateway itself ("anonymous", "local", "cli", "system"). */
  | 'LOCAL'
  /** A person of the identity provider (`user:SUB`): signed in, by token, or by a key issued to them. */
  | 'PERSON'
  /** A service of the identity provider (client credentials, `user:CLIENT`). */
  | 'SERVICE';

/** What the gateway found about a row’s payee at import, or a single payment’s at create, against the account that payee was last paid to (by keyed fingerprint: never a card number). */
export type PayeeMarkKind =
  /** This payee was last paid (lastPaidAt) to another account: a row is held until the approver includes it (approveBatch includeChangedAccounts), a single payment is executed only with executePayment includeChangedAccount. */
  | 'ACCOUNT_CHANGED'
  /** Paid before (lastPaidAt) to this same account. */
  | 'KNOWN'
  /** The gateway never paid this payee. */
  | 'NEW_PAYEE';

/** Why a payment failed or expired (the spec’s StatusErrorCode). */
export type PaymentErrorCode =
  /** The recipient’s bank or the provider declined it. */
  | 'BILLING_DECLINED'
  /** Not executed before its expiry. */
  | 'EXPIRED'
  /** Stopped by the upstream’s fraud checks. */
  | 'FRAUD_SUSPECTED'
  /** The payer’s balance did not cover the payment and its commission. */
  | 'INSUFFICIENT_FUNDS'
  /** The upstream or provider failed internally. */
  | 'INTERNAL_ERROR'
  /** Over a provider or recipient limit. */
  | 'LIMIT_ERROR';

/** Where a payment as shown comes from. */
export type PaymentReadSource =
  /** Read from the upstream just now (readAt), merged with the gateway’s record. */
  | 'LIVE'
  /** The gateway’s record alone, as last written (readAt): the upstream was not asked, or did not answer (liveReadError says why). */
  | 'RECORDED';

/** The upstream payment status (the spec’s StatusCode). */
export type PaymentStatus =
  /** Final: paid. */
  | 'COMPLETED'
  /** Accepted by the upstream, not yet ready to execute. */
  | 'CREATED'
  /** Final: not executed in time; nothing was paid. */
  | 'EXPIRED'
  /** Final: the provider did not pay it (see errorCode). */
  | 'FAILED'
  /** Executed; the provider is paying it. */
  | 'IN_PROGRESS'
  /** Created and checked; waits for executePayment (or expires at expiresAt). */
  | 'READY';

/** How bad a validation problem is. */
export type ProblemSeverity =
  /** The row (or the file) cannot be paid as it is. */
  | 'ERROR'
  /** Worth a look; the row is paid. */
  | 'WARNING';

/** Payout provider; each value stands for the upstream code in its description. */
export type ProviderCode =
  /** Upstream code bank-card-russia */
  | 'BANK_CARD_RUSSIA'
  /** Upstream code bank-card-russia-fio */
  | 'BANK_CARD_RUSSIA_FIO'
  /** Upstream code bank-card-russia-gph */
  | 'BANK_CARD_RUSSIA_GPH'
  /** Upstream code bank-card-token */
  | 'BANK_CARD_TOKEN'
  /** Upstream code sbp-b2c */
  | 'SBP_B2C'
  /** Upstream code sbp-fio */
  | 'SBP_FIO';

/** Which part of a reconciliation period is refused. */
export type ReconciliationPeriodField =
  /** The `from` argument. */
  | 'FROM'
  /** The time zone the period is read in (RECONCILE_TIME_ZONE). */
  | 'TIME_ZONE'
  /** The `to` argument. */
  | 'TO';

/** Where a reconciliation run is, in order. */
export type ReconciliationPhase =
  /** Both sides are compared and the discrepancies written. */
  | 'COMPARING'
  /** Missing and status-differing payments are read one by one. */
  | 'CONFIRMING'
  /** Totals and counts are recorded; the run is finished (see status). */
  | 'DONE'
  /** Each day of the period (and a day either side) is read from the upstream’s list. */
  | 'READING'
  /** Where the upstream is final and the gateway is not, the gateway takes the upstream’s status. */
  | 'REPAIRING';

/** Whether a reconciliation run is going, done or failed. */
export type ReconciliationStatus =
  /** Finished: the counts and discrepancies are final. */
  | 'COMPLETED'
  /** Stopped before the end (see error). */
  | 'FAILED'
  /** Still reading or comparing (see phase). */
  | 'RUNNING';

/** Who started a reconciliation run. */
export type ReconciliationTrigger =
  /** The command line (payout reconcile): startReconciliation sent by the payout CLI, as it says of itself (x-payout-client: cli); the key is what is authenticated. */
  | 'CLI'
  /** The startReconciliation mutation: the page or the API. */
  | 'GRAPHQL'
  /** The daily schedule (RECONCILE_DAILY_AT). */
  | 'SCHEDULE';

/** A person’s verdict on a row no read settles: PAID (no money moves), PAY_AGAIN (FAILED, for retryFailedItems), DO_NOT_PAY (CANCELLED). */
export type ReviewMark =
  /** Never pay it from here: the row becomes CANCELLED. */
  | 'DO_NOT_PAY'
  /** It was paid: the row becomes COMPLETED; no money moves. */
  | 'PAID'
  /** It was not paid: the row becomes FAILED, for retryFailedItems (only once a read shows it unpaid). */
  | 'PAY_AGAIN';

/** What a read of a NEEDS_REVIEW row’s payment proved. */
export type ReviewVerdict =
  /** The payment is READY and was never executed from here: the row becomes FAILED, payable again. */
  | 'CREATED_NOT_EXECUTED'
  /** The partner says EXPIRED: the row becomes EXPIRED, payable again. */
  | 'EXPIRED'
  /** The partner says FAILED: the row becomes FAILED, payable again with retryFailedItems. */
  | 'FAILED'
  /** The partner says IN_PROGRESS: the row follows it. */
  | 'IN_PROGRESS'
  /** The partner has no such payment: nothing was paid; the row becomes FAILED, payable again. */
  | 'NOT_CREATED'
  /** The payment under this id is not the row’s (other amount or recipient): the row stays NEEDS_REVIEW. */
  | 'NOT_OURS'
  /** The partner says COMPLETED: the row becomes COMPLETED. */
  | 'PAID'
  /** The payment could not be read now: the row stays NEEDS_REVIEW. */
  | 'UNKNOWN';

/** What an API key may do (docs/api/graphql/access.md). */
export type Role =
  /** Every query, the audit trail included; mutations: createPayment, executePayment, importBatch, approveBatch, cancelBatch, dismissBatch, retryFailedItems, pauseBatch, resumeBatch, startReconciliation, reviewBatchItems, markBatchItem, manageEventSubscriptions, manageApiKeys. */
  | 'ADMIN'
  /** Every query but auditEvents; mutations: approveBatch, cancelBatch, dismissBatch, pauseBatch, resumeBatch, startReconciliation, reviewBatchItems, markBatchItem. */
  | 'APPROVER'
  /** Every query but auditEvents; mutations: createPayment, executePayment, importBatch, cancelBatch, dismissBatch, retryFailedItems, pauseBatch, resumeBatch, startReconciliation, reviewBatchItems. */
  | 'OPERATOR'
  /** Every query but auditEvents; no mutation. */
  | 'VIEWER';

/** How the gateway learned a status. */
export type StatusSource =
  /** The upstream’s answer to the create. */
  | 'CREATE'
  /** The upstream’s answer to the execute. */
  | 'EXECUTE'
  /** A read of the payment (payment query, CLI, batch worker). */
  | 'READ'
  /** The read-back of a payment whose answer was lost or unsettled. */
  | 'READ_BACK'
  /** A reconciliation repaired it from the upstream’s list. */
  | 'RECONCILE'
  /** The gateway recorded the request before sending the create (PENDING). */
  | 'REQUEST'
  /** A status webhook from the upstream. */
  | 'WEBHOOK';

/** The gateway’s own record: the upstream status, or PENDING (create sent, not confirmed), REJECTED (the upstream refused the create; nothing exists there) or UNKNOWN (an answer was lost and reading back could not settle it; a person must look). */
export type TrackingStatus =
  /** Final: paid. */
  | 'COMPLETED'
  /** Accepted by the upstream, not yet ready to execute. */
  | 'CREATED'
  /** Final: not executed in time; nothing was paid. */
  | 'EXPIRED'
  /** Final: the provider did not pay it (see errorCode). */
  | 'FAILED'
  /** Executed; the provider is paying it. */
  | 'IN_PROGRESS'
  /** The create was sent (or is about to be); the upstream has not confirmed it yet. */
  | 'PENDING'
  /** Created and checked; waits for executePayment (or expires at expiresAt). */
  | 'READY'
  /** Final: the upstream refused the create; no payment exists there. */
  | 'REJECTED'
  /** An answer was lost and reading back could not settle it: a person must look. */
  | 'UNKNOWN';

/** Why an approved batch sends nothing now. */
export type WaitReason =
  /** The partner answered INSUFFICIENT_FUNDS: it resumes by itself once the balance covers the rows left, or a person resumes it. */
  | 'FUNDS'
  /** The partner breaker is open: the Payout API answers 5xx. */
  | 'PARTNER_FAILING'
  /** The breaker is closed, but rows of this batch wait for a retry after a failed call (no answer, 5xx, 429): said from the first retry, before enough failures open the breaker. */
  | 'PARTNER_RETRYING'
  /** The partner breaker is open: the Payout API answers 429 Too Many Requests. */
  | 'PARTNER_THROTTLED'
  /** The partner breaker is open: no answer from the Payout API. It goes on by itself once a probe is answered. */
  | 'PARTNER_UNREACHABLE'
  /** Paused by a person (pausedBy); a person resumes it. */
  | 'PERSON';

export type HelloQueryVariables = Exact<{ [key: string]: never; }>;


export type HelloQuery = { __typename: 'Query' };

export type MeQueryVariables = Exact<{ [key: string]: never; }>;


export type MeQuery = { me: { identity: string, name: string, role: Role, via: string | null, approvesOwnBatches: boolean } };

export type IdentitiesQueryVariables = Exact<{
  ids: Array<string> | string;
}>;


export type IdentitiesQuery = { identities: Array<{ id: string, name: string, kind: IdentityKind }> };

export type BatchSummaryFieldsFragment = { id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null };

export type BatchDetailFieldsFragment = { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null };

export type BatchesQueryVariables = Exact<{
  status?: BatchStatus | null | undefined;
  includeDismissed?: boolean | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type BatchesQuery = { batches: { edges: Array<{ node: { id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, waiting: { reason: WaitReason, by: string | null, shortfall: { value: unknown, currency: Currency } | null } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type BatchQueryVariables = Exact<{
  id: string | number;
}>;


export type BatchQuery = { batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } | null };

export type BatchCommissionQueryVariables = Exact<{
  id: string | number;
  includeHeld?: boolean | null | undefined;
}>;


export type BatchCommissionQuery = { batch: { id: string, commissionEstimate: { value: unknown, currency: Currency } } | null };

export type BatchProblemsQueryVariables = Exact<{
  id: string | number;
  limit?: number | null | undefined;
}>;


export type BatchProblemsQuery = { batch: { id: string, problems: Array<{ line: number | null, column: string | null, code: string, severity: ProblemSeverity, message: string }> } | null };

export type BatchItemsQueryVariables = Exact<{
  id: string | number;
  status?: BatchItemStatus | null | undefined;
  heldFor?: HoldReason | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type BatchItemsQuery = { batch: { id: string, items: { edges: Array<{ node: { line: number, reference: string | null, paymentId: string, attempt: number, status: BatchItemStatus, provider: ProviderCode, errorCode: string | null, errorMessage: string | null, payee: string | null, heldFor: Array<HoldReason>, amount: { value: unknown, currency: Currency }, recipient: Array<{ key: string, value: string }>, payeeMark: { kind: PayeeMarkKind, lastPaidAt: unknown } | null, cancelledAfterCreate: { expiresAt: unknown, openUpstream: boolean, paymentStatus: TrackingStatus } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type BatchProgressSubscriptionVariables = Exact<{
  id: string | number;
}>;


export type BatchProgressSubscription = { batchProgress: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } };

export type ImportBatchMutationVariables = Exact<{
  file: unknown;
  force?: boolean | null | undefined;
}>;


export type ImportBatchMutation = { importBatch:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'ImportBatchSuccess', batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }
   };

export type ApproveBatchMutationVariables = Exact<{
  id: string | number;
  validRowsOnly?: boolean | null | undefined;
  includeHeld?: boolean | null | undefined;
  includeChangedAccounts?: boolean | null | undefined;
  ignoreBalance?: boolean | null | undefined;
  payAt?: unknown;
  agree?: boolean | null | undefined;
  newRound?: boolean | null | undefined;
}>;


export type ApproveBatchMutation = { result:
    | { __typename: 'ApproveBatchSuccess', batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }
    | { __typename: 'BatchError', code: ErrorCode, message: string }
   };

export type RescheduleBatchMutationVariables = Exact<{
  id: string | number;
  payAt: unknown;
}>;


export type RescheduleBatchMutation = { result:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'RescheduleBatchSuccess', batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }
   };

export type UpcomingPaydaysQueryVariables = Exact<{ [key: string]: never; }>;


export type UpcomingPaydaysQuery = { upcomingPaydays: Array<{ id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null }> };

export type CancelBatchMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelBatchMutation = { result:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'CancelBatchSuccess', batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }
   };

export type DismissBatchMutationVariables = Exact<{
  id: string | number;
}>;


export type DismissBatchMutation = { result:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'DismissBatchSuccess', batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }
   };

export type RetryFailedItemsMutationVariables = Exact<{
  id: string | number;
}>;


export type RetryFailedItemsMutation = { result:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'RetryFailedItemsSuccess', batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }
   };

export type PauseBatchMutationVariables = Exact<{
  id: string | number;
}>;


export type PauseBatchMutation = { result:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'PauseBatchSuccess', batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }
   };

export type ResumeBatchMutationVariables = Exact<{
  id: string | number;
}>;


export type ResumeBatchMutation = { result:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'ResumeBatchSuccess', batch: { validRowsOnly: boolean, forced: boolean, includeHeld: boolean, dismissedBy: string | null, uploadedBy: string | null, approvedBy: string | null, startedAt: unknown, finishedAt: unknown, cancelledAt: unknown, throughput: number | null, secondsLeft: number | null, resultsUrl: string, id: string, actions: Array<BatchAction>, name: string, fileName: string | null, status: BatchStatus, rowCount: number, validCount: number, invalidCount: number, warningCount: number, createdAt: unknown, approvedAt: unknown, heldCount: number, payableCount: number, dismissedAt: unknown, changedAccountCount: number, includeChangedAccounts: boolean, payAt: unknown, commissionCharged: { value: unknown, currency: Currency }, overlaps: Array<{ batchId: string, rows: number, amount: unknown }>, waiting: { reason: WaitReason, since: unknown, by: string | null, nextCheckAt: unknown, waitingFor: string, shortfall: { value: unknown, currency: Currency } | null } | null, approvals: Array<{ by: string, role: Role | null, at: unknown }>, approvalsNeeded: { count: number, roles: Array<Role>, required: number, lapseDays: number, lapsed: Array<{ by: string, at: unknown }> } | null, pendingApproval: { payAt: unknown, includeHeld: boolean, includeChangedAccounts: boolean, validRowsOnly: boolean, rows: number, amount: string, approvals: Array<{ by: string }> } | null, totalAmount: { value: unknown, currency: Currency }, counts: Array<{ status: BatchItemStatus, count: number, amount: unknown }>, heldAmount: { value: unknown, currency: Currency }, payableAmount: { value: unknown, currency: Currency }, changedAccountAmount: { value: unknown, currency: Currency }, forecast: { readAt: unknown, nextReadAt: unknown, notice: string | null, shortfall: { value: unknown, currency: Currency } | null } | null } }
   };

export type PaymentFieldsFragment = { paymentId: string, reference: string | null, status: PaymentStatus | null, trackingStatus: TrackingStatus | null, provider: ProviderCode, batchId: string | null, batchRow: number | null, createdAt: unknown, errorCode: PaymentErrorCode | null, errorMessage: string | null, upstreamErrorCode: string | null, payee: string | null, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency } | null, recipient: Array<{ key: string, value: string }>, payeeMark: { kind: PayeeMarkKind, lastPaidAt: unknown } | null, history: Array<{ status: TrackingStatus, source: StatusSource, changedAt: unknown, recordedAt: unknown, errorCode: string | null, errorMessage: string | null }>, freshness: { source: PaymentReadSource, readAt: unknown, liveReadErrorCode: string | null, liveReadError: string | null } };

export type PaymentQueryVariables = Exact<{
  paymentId: string | number;
}>;


export type PaymentQuery = { payment: { paymentId: string, reference: string | null, status: PaymentStatus | null, trackingStatus: TrackingStatus | null, provider: ProviderCode, batchId: string | null, batchRow: number | null, createdAt: unknown, errorCode: PaymentErrorCode | null, errorMessage: string | null, upstreamErrorCode: string | null, payee: string | null, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency } | null, recipient: Array<{ key: string, value: string }>, payeeMark: { kind: PayeeMarkKind, lastPaidAt: unknown } | null, history: Array<{ status: TrackingStatus, source: StatusSource, changedAt: unknown, recordedAt: unknown, errorCode: string | null, errorMessage: string | null }>, freshness: { source: PaymentReadSource, readAt: unknown, liveReadErrorCode: string | null, liveReadError: string | null } } | null };

export type PaymentsByReferenceQueryVariables = Exact<{
  reference: string;
  first?: number | null | undefined;
}>;


export type PaymentsByReferenceQuery = { searchPayments: { edges: Array<{ node: { paymentId: string, reference: string | null, status: PaymentStatus | null, trackingStatus: TrackingStatus | null, provider: ProviderCode, batchId: string | null, batchRow: number | null, createdAt: unknown, errorCode: PaymentErrorCode | null, errorMessage: string | null, upstreamErrorCode: string | null, payee: string | null, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency } | null, recipient: Array<{ key: string, value: string }>, payeeMark: { kind: PayeeMarkKind, lastPaidAt: unknown } | null, history: Array<{ status: TrackingStatus, source: StatusSource, changedAt: unknown, recordedAt: unknown, errorCode: string | null, errorMessage: string | null }>, freshness: { source: PaymentReadSource, readAt: unknown, liveReadErrorCode: string | null, liveReadError: string | null } } }> } };

export type ReconciliationSideFieldsFragment = { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } };

export type ReconciliationRunFieldsFragment = { id: string, from: unknown, to: unknown, timeZone: string, status: ReconciliationStatus, trigger: ReconciliationTrigger, requestedBy: string | null, phase: ReconciliationPhase, daysRead: number, daysToRead: number, upstreamRequests: number, matchedCount: number, discrepancyCount: number, openCount: number, repairedCount: number, error: string | null, startedAt: unknown, finishedAt: unknown, upstream: { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } }, gateway: { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } }, countsByCode: Array<{ code: DiscrepancyCode, count: number }> };

export type ReconciliationRunsQueryVariables = Exact<{
  status?: ReconciliationStatus | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ReconciliationRunsQuery = { reconciliationRuns: { edges: Array<{ node: { id: string, from: unknown, to: unknown, timeZone: string, status: ReconciliationStatus, trigger: ReconciliationTrigger, requestedBy: string | null, phase: ReconciliationPhase, daysRead: number, daysToRead: number, upstreamRequests: number, matchedCount: number, discrepancyCount: number, openCount: number, repairedCount: number, error: string | null, startedAt: unknown, finishedAt: unknown, upstream: { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } }, gateway: { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } }, countsByCode: Array<{ code: DiscrepancyCode, count: number }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type ReconciliationRunQueryVariables = Exact<{
  id: string | number;
}>;


export type ReconciliationRunQuery = { reconciliationRun: { id: string, from: unknown, to: unknown, timeZone: string, status: ReconciliationStatus, trigger: ReconciliationTrigger, requestedBy: string | null, phase: ReconciliationPhase, daysRead: number, daysToRead: number, upstreamRequests: number, matchedCount: number, discrepancyCount: number, openCount: number, repairedCount: number, error: string | null, startedAt: unknown, finishedAt: unknown, upstream: { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } }, gateway: { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } }, countsByCode: Array<{ code: DiscrepancyCode, count: number }> } | null };

export type RunDiscrepanciesQueryVariables = Exact<{
  id: string | number;
  code?: DiscrepancyCode | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type RunDiscrepanciesQuery = { reconciliationRun: { id: string, discrepancies: { edges: Array<{ node: { id: string, code: DiscrepancyCode, description: string, paymentId: string, batchId: string | null, batchRow: number | null, gatewayValue: string | null, upstreamValue: string | null, finalSide: FinalSide | null, resolution: DiscrepancyResolution, amount: { value: unknown, currency: Currency } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type StartReconciliationMutationVariables = Exact<{
  from?: unknown;
  to?: unknown;
}>;


export type StartReconciliationMutation = { startReconciliation:
    | { __typename: 'ReconciliationPeriodError', message: string, field: ReconciliationPeriodField }
    | { __typename: 'StartReconciliationSuccess', run: { id: string, from: unknown, to: unknown, timeZone: string, status: ReconciliationStatus, trigger: ReconciliationTrigger, requestedBy: string | null, phase: ReconciliationPhase, daysRead: number, daysToRead: number, upstreamRequests: number, matchedCount: number, discrepancyCount: number, openCount: number, repairedCount: number, error: string | null, startedAt: unknown, finishedAt: unknown, upstream: { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } }, gateway: { count: number, paidCount: number, amount: { value: unknown, currency: Currency }, commission: { value: unknown, currency: Currency }, paidAmount: { value: unknown, currency: Currency } }, countsByCode: Array<{ code: DiscrepancyCode, count: number }> } }
   };

export type ReviewItemsQueryVariables = Exact<{
  id: string | number;
}>;


export type ReviewItemsQuery = { batch: { id: string, items: { edges: Array<{ node: { line: number, paymentId: string, attempt: number, status: BatchItemStatus, provider: ProviderCode, errorCode: string | null, errorMessage: string | null, amount: { value: unknown, currency: Currency } } }> } } | null };

export type ReviewMutationVariables = Exact<{
  id: string | number;
}>;


export type ReviewMutation = { result:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'ReviewBatchItemsSuccess', review: { settled: number, unsettled: number, rows: Array<{ line: number, paymentId: string, verdict: ReviewVerdict, status: BatchItemStatus }> } }
   };

export type MarkMutationVariables = Exact<{
  id: string | number;
  line: number;
  mark: ReviewMark;
  reason: string;
}>;


export type MarkMutation = { result:
    | { __typename: 'BatchError', code: ErrorCode, message: string }
    | { __typename: 'MarkBatchItemSuccess', item: { line: number, status: BatchItemStatus } }
   };

export type EventTypesQueryVariables = Exact<{ [key: string]: never; }>;


export type EventTypesQuery = { eventTypes: Array<{ name: string, description: string }> };

export type EventSubscriptionFieldsFragment = { id: string, url: string, types: Array<string>, description: string, enabled: boolean, eventsPerRequest: number, disabledReason: string | null, offReason: EventSubscriptionOffReason | null, offBy: string | null, disabledAt: unknown, failingSince: unknown, nextAttemptAt: unknown, backlog: number, oldestUndeliveredAt: unknown, previousSecretValidUntil: unknown, createdAt: unknown, createdBy: string };

export type EventSubscriptionsQueryVariables = Exact<{ [key: string]: never; }>;


export type EventSubscriptionsQuery = { eventSubscriptions: Array<{ id: string, url: string, types: Array<string>, description: string, enabled: boolean, eventsPerRequest: number, disabledReason: string | null, offReason: EventSubscriptionOffReason | null, offBy: string | null, disabledAt: unknown, failingSince: unknown, nextAttemptAt: unknown, backlog: number, oldestUndeliveredAt: unknown, previousSecretValidUntil: unknown, createdAt: unknown, createdBy: string }> };

export type EventDeliveriesQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type EventDeliveriesQuery = { eventSubscriptions: Array<{ id: string, deliveries: Array<{ eventId: string, eventType: string, sequence: string, attempt: number, at: unknown, outcome: string, statusCode: number | null, durationMs: number, excerpt: string | null, resend: boolean }> }> };

export type CreateEventSubscriptionMutationVariables = Exact<{
  input: EventSubscriptionInput;
}>;


export type CreateEventSubscriptionMutation = { result:
    | { __typename: 'CreateEventSubscriptionSuccess', created: { secret: string, subscription: { id: string, url: string, types: Array<string>, description: string, enabled: boolean, eventsPerRequest: number, disabledReason: string | null, offReason: EventSubscriptionOffReason | null, offBy: string | null, disabledAt: unknown, failingSince: unknown, nextAttemptAt: unknown, backlog: number, oldestUndeliveredAt: unknown, previousSecretValidUntil: unknown, createdAt: unknown, createdBy: string } } }
    | { __typename: 'EventSubscriptionError', code: ErrorCode, message: string }
   };

export type UpdateEventSubscriptionMutationVariables = Exact<{
  id: string;
  change: EventSubscriptionChange;
}>;


export type UpdateEventSubscriptionMutation = { result:
    | { __typename: 'EventSubscriptionError', code: ErrorCode, message: string }
    | { __typename: 'UpdateEventSubscriptionSuccess', subscription: { id: string, url: string, types: Array<string>, description: string, enabled: boolean, eventsPerRequest: number, disabledReason: string | null, offReason: EventSubscriptionOffReason | null, offBy: string | null, disabledAt: unknown, failingSince: unknown, nextAttemptAt: unknown, backlog: number, oldestUndeliveredAt: unknown, previousSecretValidUntil: unknown, createdAt: unknown, createdBy: string } }
   };

export type RotateEventSubscriptionSecretMutationVariables = Exact<{
  id: string;
}>;


export type RotateEventSubscriptionSecretMutation = { result:
    | { __typename: 'EventSubscriptionError', code: ErrorCode, message: string }
    | { __typename: 'RotateEventSubscriptionSecretSuccess', rotated: { secret: string, previousValidUntil: unknown } }
   };

export type DeleteEventSubscriptionMutationVariables = Exact<{
  id: string;
}>;


export type DeleteEventSubscriptionMutation = { result:
    | { __typename: 'DeleteEventSubscriptionSuccess', deleted: boolean }
    | { __typename: 'EventSubscriptionError', code: ErrorCode, message: string }
   };

export type ReplayEventsMutationVariables = Exact<{
  id: string;
  since: unknown;
}>;


export type ReplayEventsMutation = { result:
    | { __typename: 'EventSubscriptionError', code: ErrorCode, message: string }
    | { __typename: 'ReplayEventsSuccess', eventsAhead: number }
   };

export type ResendEventMutationVariables = Exact<{
  id: string;
  eventId: string;
}>;


export type ResendEventMutation = { result:
    | { __typename: 'EventSubscriptionError', code: ErrorCode, message: string }
    | { __typename: 'ResendEventSuccess', delivery: { outcome: string, statusCode: number | null, excerpt: string | null } }
   };

export type ApiKeyFieldsFragment = { id: string, name: string, role: Role, hint: string, createdAt: unknown, createdBy: string, expiresAt: unknown, revokedAt: unknown, revokedBy: string | null, lastUsedAt: unknown, owner: { id: string, name: string } | null };

export type ApiKeysQueryVariables = Exact<{ [key: string]: never; }>;


export type ApiKeysQuery = { apiKeys: Array<{ id: string, name: string, role: Role, hint: string, createdAt: unknown, createdBy: string, expiresAt: unknown, revokedAt: unknown, revokedBy: string | null, lastUsedAt: unknown, owner: { id: string, name: string } | null }> };

export type PeopleQueryVariables = Exact<{ [key: string]: never; }>;


export type PeopleQuery = { people: Array<{ id: string, name: string, email: string | null, kind: IdentityKind }> };

export type CreateApiKeyMutationVariables = Exact<{
  input: ApiKeyInput;
}>;


export type CreateApiKeyMutation = { result:
    | { __typename: 'ApiKeyError', code: ErrorCode, message: string }
    | { __typename: 'CreateApiKeySuccess', created: { secret: string, apiKey: { id: string, name: string, role: Role, hint: string, createdAt: unknown, createdBy: string, expiresAt: unknown, revokedAt: unknown, revokedBy: string | null, lastUsedAt: unknown, owner: { id: string, name: string } | null } } }
   };

export type RevokeApiKeyMutationVariables = Exact<{
  id: string;
}>;


export type RevokeApiKeyMutation = { result:
    | { __typename: 'ApiKeyError', code: ErrorCode, message: string }
    | { __typename: 'RevokeApiKeySuccess', apiKey: { id: string, name: string, role: Role, hint: string, createdAt: unknown, createdBy: string, expiresAt: unknown, revokedAt: unknown, revokedBy: string | null, lastUsedAt: unknown, owner: { id: string, name: string } | null } }
   };

export const BatchSummaryFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummaryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Batch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"actions"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"fileName"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"rowCount"}},{"kind":"Field","name":{"kind":"Name","value":"validCount"}},{"kind":"Field","name":{"kind":"Name","value":"invalidCount"}},{"kind":"Field","name":{"kind":"Name","value":"warningCount"}},{"kind":"Field","name":{"kind":"Name","value":"totalAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvedAt"}},{"kind":"Field","name":{"kind":"Name","value":"counts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"heldCount"}},{"kind":"Field","name":{"kind":"Name","value":"heldAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"payableCount"}},{"kind":"Field","name":{"kind":"Name","value":"payableAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"dismissedAt"}},{"kind":"Field","name":{"kind":"Name","value":"changedAccountCount"}},{"kind":"Field","name":{"kind":"Name","value":"changedAccountAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"includeChangedAccounts"}},{"kind":"Field","name":{"kind":"Name","value":"payAt"}},{"kind":"Field","name":{"kind":"Name","value":"forecast"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"readAt"}},{"kind":"Field","name":{"kind":"Name","value":"nextReadAt"}},{"kind":"Field","name":{"kind":"Name","value":"shortfall"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"notice"}}]}}]}}]} as unknown as DocumentNode<BatchSummaryFieldsFragment, unknown>;
export const BatchDetailFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchDetailFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Batch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchSummaryFields"}},{"kind":"Field","name":{"kind":"Name","value":"validRowsOnly"}},{"kind":"Field","name":{"kind":"Name","value":"forced"}},{"kind":"Field","name":{"kind":"Name","value":"includeHeld"}},{"kind":"Field","name":{"kind":"Name","value":"commissionCharged"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"dismissedBy"}},{"kind":"Field","name":{"kind":"Name","value":"overlaps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"rows"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"uploadedBy"}},{"kind":"Field","name":{"kind":"Name","value":"approvedBy"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"cancelledAt"}},{"kind":"Field","name":{"kind":"Name","value":"throughput"}},{"kind":"Field","name":{"kind":"Name","value":"secondsLeft"}},{"kind":"Field","name":{"kind":"Name","value":"resultsUrl"}},{"kind":"Field","name":{"kind":"Name","value":"waiting"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"since"}},{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"shortfall"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nextCheckAt"}},{"kind":"Field","name":{"kind":"Name","value":"waitingFor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}},{"kind":"Field","name":{"kind":"Name","value":"approvalsNeeded"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}},{"kind":"Field","name":{"kind":"Name","value":"required"}},{"kind":"Field","name":{"kind":"Name","value":"lapsed"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"by"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}},{"kind":"Field","name":{"kind":"Name","value":"lapseDays"}}]}},{"kind":"Field","name":{"kind":"Name","value":"pendingApproval"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"approvals"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"by"}}]}},{"kind":"Field","name":{"kind":"Name","value":"payAt"}},{"kind":"Field","name":{"kind":"Name","value":"includeHeld"}},{"kind":"Field","name":{"kind":"Name","value":"includeChangedAccounts"}},{"kind":"Field","name":{"kind":"Name","value":"validRowsOnly"}},{"kind":"Field","name":{"kind":"Name","value":"rows"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummaryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Batch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"actions"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"fileName"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"rowCount"}},{"kind":"Field","name":{"kind":"Name","value":"validCount"}},{"kind":"Field","name":{"kind":"Name","value":"invalidCount"}},{"kind":"Field","name":{"kind":"Name","value":"warningCount"}},{"kind":"Field","name":{"kind":"Name","value":"totalAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"approvedAt"}},{"kind":"Field","name":{"kind":"Name","value":"counts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"heldCount"}},{"kind":"Field","name":{"kind":"Name","value":"heldAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"payableCount"}},{"kind":"Field","name":{"kind":"Name","value":"payableAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"dismissedAt"}},{"kind":"Field","name":{"kind":"Name","value":"changedAccountCount"}},{"kind":"Field","name":{"kind":"Name","value":"changedAccountAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"includeChangedAccounts"}},{"kind":"Field","name":{"kind":"Name","value":"payAt"}},{"kind":"Field","name":{"kind":"Name","value":"forecast"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"readAt"}},{"kind":"Field","name":{"kind":"Name","value":"nextReadAt"}},{"kind":"Field","name":{"kind":"Name","value":"shortfall"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"notice"}}]}}]}}]} as unknown as DocumentNode<BatchDetailFieldsFragment, unknown>;
export const PaymentFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PaymentFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Payment"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"paymentId"}},{"kind":"Field","name":{"kind":"Name","value":"reference"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"trackingStatus"}},{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"amount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"commission"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"recipient"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"batchRow"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"errorCode"}},{"kind":"Field","name":{"kind":"Name","value":"errorMessage"}},{"kind":"Field","name":{"kind":"Name","value":"upstreamErrorCode"}},{"kind":"Field","name":{"kind":"Name","value":"payee"}},{"kind":"Field","name":{"kind":"Name","value":"payeeMark"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"lastPaidAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"history"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"changedAt"}},{"kind":"Field","name":{"kind":"Name","value":"recordedAt"}},{"kind":"Field","name":{"kind":"Name","value":"errorCode"}},{"kind":"Field","name":{"kind":"Name","value":"errorMessage"}}]}},{"kind":"Field","name":{"kind":"Name","value":"freshness"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"readAt"}},{"kind":"Field","name":{"kind":"Name","value":"liveReadErrorCode"}},{"kind":"Field","name":{"kind":"Name","value":"liveReadError"}}]}}]}}]} as unknown as DocumentNode<PaymentFieldsFragment, unknown>;
export const ReconciliationSideFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ReconciliationSideFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ReconciliationSide"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"amount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"commission"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"paidCount"}},{"kind":"Field","name":{"kind":"Name","value":"paidAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}}]}}]} as unknown as DocumentNode<ReconciliationSideFieldsFragment, unknown>;
export const ReconciliationRunFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ReconciliationRunFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ReconciliationRun"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}},{"kind":"Field","name":{"kind":"Name","value":"timeZone"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"trigger"}},{"kind":"Field","name":{"kind":"Name","value":"requestedBy"}},{"kind":"Field","name":{"kind":"Name","value":"phase"}},{"kind":"Field","name":{"kind":"Name","value":"daysRead"}},{"kind":"Field","name":{"kind":"Name","value":"daysToRead"}},{"kind":"Field","name":{"kind":"Name","value":"upstreamRequests"}},{"kind":"Field","name":{"kind":"Name","value":"upstream"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ReconciliationSideFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gateway"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ReconciliationSideFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"matchedCount"}},{"kind":"Field","name":{"kind":"Name","value":"discrepancyCount"}},{"kind":"Field","name":{"kind":"Name","value":"openCount"}},{"kind":"Field","name":{"kind":"Name","value":"repairedCount"}},{"kind":"Field","name":{"kind":"Name","value":"countsByCode"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ReconciliationSideFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ReconciliationSide"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"count"}},{"kind":"Field","name":{"kind":"Name","value":"amount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"commission"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}},{"kind":"Field","name":{"kind":"Name","value":"paidCount"}},{"kind":"Field","name":{"kind":"Name","value":"paidAmount"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}}]}}]}}]} as unknown as DocumentNode<ReconciliationRunFieldsFragment, unknown>;
export const EventSubscriptionFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EventSubscriptionFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"EventSubscription"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","name":{"kind":"Name","value":"types"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"eventsPerRequest"}},{"kind":"Field","name":{"kind":"Name","value":"disabledReason"}},{"kind":"Field","name":{"kind":"Name","value":"offReason"}},{"kind":"Field","name":{"kind":"Name","value":"offBy"}},{"kind":"Field","name":{"kind":"Name","value":"disabledAt"}},{"kind":"Field","name":{"kind":"Name","value":"failingSince"}},{"kind":"Field","name":{"kind":"Name","value":"nextAttemptAt"}},{"kind":"Field","name":{"kind":"Name","value":"backlog"}},{"kind":"Field","name":{"kind":"Name","value":"oldestUndeliveredAt"}},{"kind":"Field","name":{"kind":"Name","value":"previousSecretValidUntil"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdBy"}}]}}]} as unknown as DocumentNode<EventSubscriptionFieldsFragment, unknown>;
export const ApiKeyFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApiKeyFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ApiKey"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"hint"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdBy"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"revokedAt"}},{"kind":"Field","name":{"kind":"Name","value":"revokedBy"}},{"kind":"Field","name":{"kind":"Name","value":"lastUsedAt"}},{"kind":"Field","name":{"kind":"Name","value":"owner"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]} as unknown as DocumentNode<ApiKeyFieldsFragment, unknown>;
export const HelloDocument = {"__meta__":{"hash":"sha256:e21b91483eaf0d4f85ac736a9dd636f74b25e6a48a66ae342edbbc420f119dcf"}} as unknown as DocumentNode<HelloQuery, HelloQueryVariables>;
export const MeDocument = {"__meta__":{"hash":"sha256:0c3a5327f96f114f8413b1c74c21a21d8df9e65453f985b81fe77bf4a1908ded"}} as unknown as DocumentNode<MeQuery, MeQueryVariables>;
export const IdentitiesDocument = {"__meta__":{"hash":"sha256:0f2313f7c0bc23a004c6de4a11cff8178b8b5b3de7c0d7eb0baf6714846c6345"}} as unknown as DocumentNode<IdentitiesQuery, IdentitiesQueryVariables>;
export const BatchesDocument = {"__meta__":{"hash":"sha256:c15a96935bda6ef093583901ba5cdaf6c95b09e52f22e9ae3300077e3a322811"}} as unknown as DocumentNode<BatchesQuery, BatchesQueryVariables>;
export const BatchDocument = {"__meta__":{"hash":"sha256:a71bf2b9c51e57754bc37dc6a191f2e12998d304e3e87e4ca533a1d3d1103ef6"}} as unknown as DocumentNode<BatchQuery, BatchQueryVariables>;
export const BatchCommissionDocument = {"__meta__":{"hash":"sha256:fedba2ae7004c8cdad7f1c766314cb6a60fd88a20d054159904d020ef1be8039"}} as unknown as DocumentNode<BatchCommissionQuery, BatchCommissionQueryVariables>;
export const BatchProblemsDocument = {"__meta__":{"hash":"sha256:319d2bcc1034f8a5c68b12aab3a3abd3ce84680d7edc3f9fbd888c0a2640f067"}} as unknown as DocumentNode<BatchProblemsQuery, BatchProblemsQueryVariables>;
export const BatchItemsDocument = {"__meta__":{"hash":"sha256:5bbce04f9a14af0af91ef283f4e064c79e69c9768c15e45c5047ba3a67222f4c"}} as unknown as DocumentNode<BatchItemsQuery, BatchItemsQueryVariables>;
export const BatchProgressDocument = {"__meta__":{"hash":"sha256:af756e9fe6449febb1d54e78c952b7600530a62f65054f007e063255cb1b7fd3"}} as unknown as DocumentNode<BatchProgressSubscription, BatchProgressSubscriptionVariables>;
export const ImportBatchDocument = {"__meta__":{"hash":"sha256:c6eacce6df1c3302ecfb8e6cb9efbcd272175fafd8c053a24c4937b364526624"}} as unknown as DocumentNode<ImportBatchMutation, ImportBatchMutationVariables>;
export const ApproveBatchDocument = {"__meta__":{"hash":"sha256:fcb0c03480424fc9471c761ca817ae886aab9ce234277df45475a976223eef80"}} as unknown as DocumentNode<ApproveBatchMutation, ApproveBatchMutationVariables>;
export const RescheduleBatchDocument = {"__meta__":{"hash":"sha256:f7a2c37c76c69c6254342f1a1354455d9f7437bdc7309a88be44a8c6bc1cb517"}} as unknown as DocumentNode<RescheduleBatchMutation, RescheduleBatchMutationVariables>;
export const UpcomingPaydaysDocument = {"__meta__":{"hash":"sha256:a99932d8f46d030a49f7f92f48d3093aa867bf51295a9d3468926e07680d4815"}} as unknown as DocumentNode<UpcomingPaydaysQuery, UpcomingPaydaysQueryVariables>;
export const CancelBatchDocument = {"__meta__":{"hash":"sha256:e50d72fca8342e2eaaedaecee1784c6c139981020861b28c8b4f16b984f12319"}} as unknown as DocumentNode<CancelBatchMutation, CancelBatchMutationVariables>;
export const DismissBatchDocument = {"__meta__":{"hash":"sha256:609f9244519cd2cd9e6425c1fadf744d19bf69c084a81d446868a49a0f4b49cd"}} as unknown as DocumentNode<DismissBatchMutation, DismissBatchMutationVariables>;
export const RetryFailedItemsDocument = {"__meta__":{"hash":"sha256:c228bb5e2f3bc746fe27b2e20dbda072a5370b65e4f9ff9a292ed0dbb75b07c8"}} as unknown as DocumentNode<RetryFailedItemsMutation, RetryFailedItemsMutationVariables>;
export const PauseBatchDocument = {"__meta__":{"hash":"sha256:029debe7266dbf8e88bf8337fbd2f7de647c17cb7ff26700d89c539b7b999e9b"}} as unknown as DocumentNode<PauseBatchMutation, PauseBatchMutationVariables>;
export const ResumeBatchDocument = {"__meta__":{"hash":"sha256:42c244c37f489145c04b05b2432676fb173598f621acb31740ed30716e3840c0"}} as unknown as DocumentNode<ResumeBatchMutation, ResumeBatchMutationVariables>;
export const PaymentDocument = {"__meta__":{"hash":"sha256:03e57ca59d8a9d89995a1cac52e9ac3ebb6743175e982935c4c483fa6242063d"}} as unknown as DocumentNode<PaymentQuery, PaymentQueryVariables>;
export const PaymentsByReferenceDocument = {"__meta__":{"hash":"sha256:174590ed75ce7cd44b6705194fae0b55f21400dd5c5faf14450227c21e112a1b"}} as unknown as DocumentNode<PaymentsByReferenceQuery, PaymentsByReferenceQueryVariables>;
export const ReconciliationRunsDocument = {"__meta__":{"hash":"sha256:5dbed4b664e04209bcdefb8680ac60b366b8f376890b202fe57cf54547573d06"}} as unknown as DocumentNode<ReconciliationRunsQuery, ReconciliationRunsQueryVariables>;
export const ReconciliationRunDocument = {"__meta__":{"hash":"sha256:37eaa41d3d80d1d46dac39fd08a09a32c56fcee3397718f7aa6626227dd6a3c2"}} as unknown as DocumentNode<ReconciliationRunQuery, ReconciliationRunQueryVariables>;
export const RunDiscrepanciesDocument = {"__meta__":{"hash":"sha256:5b34d464caed0f5142da1bed89d97d7881635e3d58c54226f3ccc76931c6044c"}} as unknown as DocumentNode<RunDiscrepanciesQuery, RunDiscrepanciesQueryVariables>;
export const StartReconciliationDocument = {"__meta__":{"hash":"sha256:e3a473a234c00e277c03808e7818076a0c47975cc85c885f720175dbdaca91cc"}} as unknown as DocumentNode<StartReconciliationMutation, StartReconciliationMutationVariables>;
export const ReviewItemsDocument = {"__meta__":{"hash":"sha256:42b130b5d8b5b69038ec47379d2a072d1f3922eb7586d06af94f5f0c97f701db"}} as unknown as DocumentNode<ReviewItemsQuery, ReviewItemsQueryVariables>;
export const ReviewDocument = {"__meta__":{"hash":"sha256:7d0ecba17144fce009f9013caeddce017d7ee9702878dcea50e9fd039a0b8f40"}} as unknown as DocumentNode<ReviewMutation, ReviewMutationVariables>;
export const MarkDocument = {"__meta__":{"hash":"sha256:efa57d58a41f7d26679a94de0e64913bafacd79fea55f73c794101ca8a99563f"}} as unknown as DocumentNode<MarkMutation, MarkMutationVariables>;
export const EventTypesDocument = {"__meta__":{"hash":"sha256:ddc2fd1d5c49f689e7f215de71ef3ead898dca189e0ecac4609f719834a9afc9"}} as unknown as DocumentNode<EventTypesQuery, EventTypesQueryVariables>;
export const EventSubscriptionsDocument = {"__meta__":{"hash":"sha256:d98af8053e4086fc9ccaf5e5abdd7afe338998d4364f013f8e5c3f4a36850377"}} as unknown as DocumentNode<EventSubscriptionsQuery, EventSubscriptionsQueryVariables>;
export const EventDeliveriesDocument = {"__meta__":{"hash":"sha256:f15314736485fb7263c049fe175a8b5a902240cf6e6729ea1b5f5c3ffd74847a"}} as unknown as DocumentNode<EventDeliveriesQuery, EventDeliveriesQueryVariables>;
export const CreateEventSubscriptionDocument = {"__meta__":{"hash":"sha256:379599c7a073ad4937f094331a335ff9cc3191c57dcad84459270ef4515acb6d"}} as unknown as DocumentNode<CreateEventSubscriptionMutation, CreateEventSubscriptionMutationVariables>;
export const UpdateEventSubscriptionDocument = {"__meta__":{"hash":"sha256:1b986764f34912bdb4f41ee3ebba4ba217821dcd24f9330b5b0d9a1756dad37f"}} as unknown as DocumentNode<UpdateEventSubscriptionMutation, UpdateEventSubscriptionMutationVariables>;
export const RotateEventSubscriptionSecretDocument = {"__meta__":{"hash":"sha256:712a9dd38816ab8de8a8d72b4c62e6cf56fbb4a0fb3595aac7f9345184109fc0"}} as unknown as DocumentNode<RotateEventSubscriptionSecretMutation, RotateEventSubscriptionSecretMutationVariables>;
export const DeleteEventSubscriptionDocument = {"__meta__":{"hash":"sha256:f3415af7c5248493d24c571163ccfb096065f79e8f1af4d69c3df861c4a3a09b"}} as unknown as DocumentNode<DeleteEventSubscriptionMutation, DeleteEventSubscriptionMutationVariables>;
export const ReplayEventsDocument = {"__meta__":{"hash":"sha256:fd5a6c487ffe29306676e4d01ec75d9ef5e64164b0877f55ba8864248fca90a4"}} as unknown as DocumentNode<ReplayEventsMutation, ReplayEventsMutationVariables>;
export const ResendEventDocument = {"__meta__":{"hash":"sha256:2b5ff60cba8259538b7c5ff178e0dd1e0c0ca1e53e9505ca0907de5defcc0e26"}} as unknown as DocumentNode<ResendEventMutation, ResendEventMutationVariables>;
export const ApiKeysDocument = {"__meta__":{"hash":"sha256:884a1dc76a6eb633002cfe1afcd15b271c72d2cb996998e6c8ca9cd0da266154"}} as unknown as DocumentNode<ApiKeysQuery, ApiKeysQueryVariables>;
export const PeopleDocument = {"__meta__":{"hash":"sha256:eea2e5bb79a71c930d52902b0b310e9f7bbf53c5b004222f9cdde766ad843f96"}} as unknown as DocumentNode<PeopleQuery, PeopleQueryVariables>;
export const CreateApiKeyDocument = {"__meta__":{"hash":"sha256:0b5519b132d3b8de82c37b8283932f195e8b35fd1f24d0d99d28bb81130d6508"}} as unknown as DocumentNode<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = {"__meta__":{"hash":"sha256:ec1c1522dd838939bc95598c2b8d389ff784044beff9683362c648215b9898a7"}} as unknown as DocumentNode<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
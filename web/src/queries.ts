/** The GraphQL operations the page sends, with the shapes they return (schema.graphql). */

// The operations themselves are in operations.graphql; codegen's client preset
// (`npm run web:documents`) makes each a document of its hash only, which api.ts sends as
// `documentId` (docs/api/graphql/persisted-operations.md).
export {
  BatchesDocument as BATCHES,
  BatchDocument as BATCH,
  BatchCommissionDocument as BATCH_COMMISSION,
  BatchProblemsDocument as BATCH_PROBLEMS,
  BatchItemsDocument as BATCH_ITEMS,
  BatchProgressDocument as BATCH_PROGRESS,
  ImportBatchDocument as IMPORT_BATCH,
  ApproveBatchDocument as APPROVE_BATCH,
  CancelBatchDocument as CANCEL_BATCH,
  RescheduleBatchDocument as RESCHEDULE_BATCH,
  UpcomingPaydaysDocument as UPCOMING_PAYDAYS,
  DismissBatchDocument as DISMISS_BATCH,
  RetryFailedItemsDocument as RETRY_FAILED,
  PauseBatchDocument as PAUSE_BATCH,
  ResumeBatchDocument as RESUME_BATCH,
  PaymentDocument as PAYMENT,
  PaymentsByReferenceDocument as SEARCH_BY_REFERENCE,
  ReconciliationRunsDocument as RECONCILIATION_RUNS,
  ReconciliationRunDocument as RECONCILIATION_RUN,
  RunDiscrepanciesDocument as RUN_DISCREPANCIES,
  StartReconciliationDocument as START_RECONCILIATION,
} from './gql/graphql.ts';
import type { BatchAction, DiscrepancyResolution, ReconciliationStatus } from './gql/graphql.ts';

export interface Money {
  value: string;
  currency: string;
}

export interface StatusCount {
  status: string;
  count: number;
  amount: string;
}

export interface Problem {
  line: number | null;
  column: string | null;
  code: string;
  severity: 'ERROR' | 'WARNING';
  message: string;
}

export interface BatchSummary {
  id: string;
  name: string;
  fileName: string | null;
  status: string;
  rowCount: number;
  validCount: number;
  invalidCount: number;
  warningCount: number;
  /** Sum of the valid rows, held rows included: what is paid is payableAmount. */
  totalAmount: Money;
  createdAt: string;
  approvedAt: string | null;
  counts: StatusCount[];
  /** Held rows (status DUPLICATE: they repeat a payment) and their sum; paid only if the approver includes them (includeHeld). */
  heldCount: number;
  heldAmount: Money;
  /** The rows to pay (or paid): valid rows less held rows unless includeHeld; the sum to add up across batches. */
  payableCount: number;
  payableAmount: Money;
  /** Rows held because their payee's account changed since the last payment (apart from heldCount), their sum, and the approver's choice to pay them. */
  changedAccountCount: number;
  changedAccountAmount: Money;
  includeChangedAccounts: boolean;
  /** Taken off the list by a person (dismissBatch): a batch that paid nothing. */
  dismissedAt: string | null;
  /** When a scheduled batch pays (SCHEDULED until then); null for one approved to pay at once. */
  payAt: string | null;
  /** SCHEDULED: the balance read ahead of its time against it and the batches paying before it. */
  forecast: { readAt: string | null; nextReadAt: string | null; shortfall: Money | null; notice: string | null } | null;
  /** What its state allows now, by the gateway's lifecycle table (batch-actions.ts); the caller's role is the page's part. */
  actions: BatchAction[];
}

/** A row of the batch list: what the list shows of a batch's wait (Batches query). */
export interface BatchListed extends BatchSummary {
  waiting: Pick<BatchWait, 'reason' | 'by' | 'shortfall'> | null;
}

export interface BatchDetail extends BatchSummary {
  validRowsOnly: boolean;
  /** Imported with force although the same file was imported before. */
  forced: boolean;
  includeHeld: boolean;
  /** The commission of the batch's paid payments so far. */
  commissionCharged: Money;
  dismissedBy: string | null;
  overlaps: Array<{ batchId: string; rows: number; amount: string }>;
  uploadedBy: string | null;
  approvedBy: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  cancelledAt: string | null;
  throughput: number | null;
  secondsLeft: number | null;
  resultsUrl: string;
  /** Set while an approved batch sends nothing: paused, or held by the partner breaker. */
  waiting: BatchWait | null;
  /** Approvals counted by the approval policy: before it starts, those that count now; once started, those that started it. */
  approvals: Array<{ by: string; role: string | null; at: string }>;
  /** While it awaits approval: how many more people, of which roles (ADMIN…), the policy needs. */
  approvalsNeeded: {
    count: number;
    roles: string[];
    required: number;
    lapsed: Array<{ by: string; at: string }>;
    lapseDays: number;
  } | null;
  /** While it awaits more approvals: the choice (rows, time to pay) those given agree to, for a later approver to complete or replace. */
  pendingApproval: PendingApproval | null;
}

export interface PendingApproval {
  approvals: Array<{ by: string }>;
  payAt: string | null;
  includeHeld: boolean;
  includeChangedAccounts: boolean;
  validRowsOnly: boolean;
  rows: number;
  amount: string;
}

export interface BatchWait {
  reason: 'PERSON' | 'FUNDS' | 'PARTNER_UNREACHABLE' | 'PARTNER_THROTTLED' | 'PARTNER_FAILING' | 'PARTNER_RETRYING';
  since: string | null;
  by: string | null;
  shortfall: Money | null;
  /** When the gateway looks again by itself (balance read, partner probe); null: a person ends the wait. */
  nextCheckAt: string | null;
  waitingFor: string;
}

export interface BatchItem {
  line: number;
  reference: string | null;
  paymentId: string;
  attempt: number;
  status: string;
  provider: string;
  amount: Money;
  recipient: Array<{ key: string; value: string }>;
  errorCode: string | null;
  errorMessage: string | null;
  /** The company's id of the person paid, and what the import found: new payee, account changed since lastPaidAt (held), or known. */
  payee: string | null;
  payeeMark: { kind: 'NEW_PAYEE' | 'ACCOUNT_CHANGED' | 'KNOWN'; lastPaidAt: string | null } | null;
  /** Why a held (DUPLICATE) row is held: it repeats a payment, its payee's account changed, or both; empty when not held. */
  heldFor: Array<'REPEAT' | 'ACCOUNT_CHANGED'>;
  /** Created at the partner, then its batch was cancelled: not executed, READY there until it expires. */
  cancelledAfterCreate: { expiresAt: string | null; openUpstream: boolean; paymentStatus: string } | null;
}

export interface Payment {
  paymentId: string;
  reference: string | null;
  status: string | null;
  trackingStatus: string | null;
  provider: string;
  amount: Money;
  commission: Money | null;
  recipient: Array<{ key: string; value: string }>;
  batchId: string | null;
  batchRow: number | null;
  /** A single payment's payee (createPayment's payee) and its mark at create; batch rows carry theirs on the row. */
  payee: string | null;
  payeeMark: BatchItem['payeeMark'];
  createdAt: string;
  errorCode: string | null;
  errorMessage: string | null;
  upstreamErrorCode: string | null;
  history: Array<{
    status: string;
    source: string;
    changedAt: string | null;
    recordedAt: string;
    errorCode: string | null;
    errorMessage: string | null;
  }>;
  /** LIVE: the upstream's answer of now; RECORDED: the gateway's record, with why not live. */
  freshness: { source: 'LIVE' | 'RECORDED'; readAt: string; liveReadErrorCode: string | null; liveReadError: string | null };
}

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

export type LifecycleResult = { __typename: 'BatchError'; code: string; message: string } | { __typename: string; batch: BatchDetail };

/** Rows finished for good: nothing more will happen to them without a person. */
export const FINAL_ITEM_STATUSES = ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'NEEDS_REVIEW'];
export const FINISHED_BATCH_STATUSES = ['COMPLETED', 'COMPLETED_WITH_FAILURES', 'REJECTED', 'CANCELLED'];
export const BATCH_STATUSES = [
  'VALIDATING',
  'VALIDATED',
  'REJECTED',
  'SCHEDULED',
  'RUNNING',
  'PAUSED',
  'COMPLETED',
  'COMPLETED_WITH_FAILURES',
  'CANCELLED',
];
/** The rows filter: the statuses, with held rows by the reason they are held for (one status, two choices of the approver). */
export const HELD_FOR = { 'held:REPEAT': 'REPEAT', 'held:ACCOUNT_CHANGED': 'ACCOUNT_CHANGED' } as const;
export const ITEM_STATUSES = [
  'PENDING',
  'CREATING',
  'READY',
  'EXECUTING',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'EXPIRED',
  'CANCELLED',
  'NEEDS_REVIEW',
  'INVALID',
  ...Object.keys(HELD_FOR),
];

export const PROVIDER_NAMES: Record<string, string> = {
  BANK_CARD_RUSSIA: 'bank-card-russia',
  BANK_CARD_RUSSIA_FIO: 'bank-card-russia-fio',
  BANK_CARD_RUSSIA_GPH: 'bank-card-russia-gph',
  BANK_CARD_TOKEN: 'bank-card-token',
  SBP_B2C: 'sbp-b2c',
  SBP_FIO: 'sbp-fio',
};

export interface ReconciliationSide {
  count: number;
  amount: Money;
  commission: Money;
  paidCount: number;
  paidAmount: Money;
}

export interface ReconciliationRun {
  id: string;
  from: string;
  to: string;
  timeZone: string;
  status: ReconciliationStatus;
  /** ReconciliationTrigger: CLI, GRAPHQL or SCHEDULE. */
  trigger: string;
  requestedBy: string | null;
  /** ReconciliationPhase: READING … DONE. */
  phase: string;
  daysRead: number;
  daysToRead: number;
  upstreamRequests: number;
  upstream: ReconciliationSide;
  gateway: ReconciliationSide;
  matchedCount: number;
  discrepancyCount: number;
  openCount: number;
  repairedCount: number;
  countsByCode: Array<{ code: string; count: number }>;
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface Discrepancy {
  id: string;
  code: string;
  description: string;
  paymentId: string;
  batchId: string | null;
  batchRow: number | null;
  gatewayValue: string | null;
  upstreamValue: string | null;
  finalSide: string | null;
  amount: Money | null;
  resolution: DiscrepancyResolution;
}

export type StartReconciliationResult =
  | { __typename: 'StartReconciliationSuccess'; run: ReconciliationRun }
  | { __typename: 'ReconciliationPeriodError'; message: string; field: 'FROM' | 'TO' | 'TIME_ZONE' };

export const RECONCILIATION_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'];
export const DISCREPANCY_CODES = [
  'MISSING_UPSTREAM',
  'UNKNOWN_TO_GATEWAY',
  'STATUS_DIFFERS',
  'AMOUNT_DIFFERS',
  'COMMISSION_DIFFERS',
  'RECIPIENT_DIFFERS',
  'NOT_FINAL',
];

/** The GraphQL operations the page sends, with the shapes they return (schema.graphql). */

import { graphql } from './gql/index.ts';

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
  totalAmount: Money;
  createdAt: string;
  approvedAt: string | null;
  counts: StatusCount[];
}

export interface BatchDetail extends BatchSummary {
  validRowsOnly: boolean;
  /** Imported with force although the same file was imported before. */
  forced: boolean;
  /** Rows held back as repeats of a payment, paid only if the approver includes them. */
  flaggedCount: number;
  flaggedAmount: Money;
  includeFlagged: boolean;
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
}

export interface BatchWait {
  reason: 'PERSON' | 'FUNDS' | 'PARTNER_UNREACHABLE' | 'PARTNER_THROTTLED' | 'PARTNER_FAILING';
  since: string | null;
  by: string | null;
  shortfall: Money | null;
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
  createdAt: string;
  errorCode: string | null;
  errorMessage: string | null;
  upstreamErrorCode: string | null;
  history: Array<{ status: string; source: string; changedAt: string | null; recordedAt: string; errorCode: string | null; errorMessage: string | null }>;
}

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

// The operations are written for graphql-codegen's client preset (`npm run web:documents`):
// `graphql()` returns each one as its hash in the committed manifest
// (web/src/gql/persisted-documents.json), so the page sends `documentId`, never query text,
// and works on a gateway that runs only trusted documents (README "Persisted operations").

graphql(`fragment BatchSummaryFields on Batch {
  id name fileName status rowCount validCount invalidCount warningCount
  totalAmount { value currency } createdAt approvedAt counts { status count amount }
}`);

graphql(`fragment BatchDetailFields on Batch {
  ...BatchSummaryFields
  validRowsOnly forced flaggedCount flaggedAmount { value currency } includeFlagged
  overlaps { batchId rows amount } uploadedBy approvedBy startedAt finishedAt cancelledAt
  throughput secondsLeft resultsUrl waiting { reason since by shortfall { value currency } waitingFor }
}`);

export const BATCHES = graphql(`query Batches($status: BatchStatus, $first: Int, $after: String) {
  batches(status: $status, first: $first, after: $after) {
    edges { node { ...BatchSummaryFields } }
    pageInfo { hasNextPage endCursor }
  }
}`);

export const BATCH = graphql(`query Batch($id: ID!) { batch(id: $id) { ...BatchDetailFields } }`);

export const BATCH_PROBLEMS = graphql(`query BatchProblems($id: ID!, $limit: Int) {
  batch(id: $id) { id problems(limit: $limit) { line column code severity message } }
}`);

export const BATCH_ITEMS = graphql(`query BatchItems($id: ID!, $status: BatchItemStatus, $first: Int, $after: String) {
  batch(id: $id) {
    id
    items(status: $status, first: $first, after: $after) {
      edges { node { line reference paymentId attempt status provider amount { value currency } recipient { key value } errorCode errorMessage
        cancelledAfterCreate { expiresAt openUpstream paymentStatus } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`);

export const BATCH_PROGRESS = graphql(`subscription BatchProgress($id: ID!) { batchProgress(id: $id) { ...BatchDetailFields } }`);

export const IMPORT_BATCH = graphql(`mutation ImportBatch($file: File!) {
  importBatch(file: $file) {
    __typename
    ... on ImportBatchSuccess { batch { ...BatchDetailFields } }
    ... on BatchError { code message }
  }
}`);

export const APPROVE_BATCH = graphql(`mutation ApproveBatch($id: ID!, $validRowsOnly: Boolean, $includeFlagged: Boolean) {
  result: approveBatch(id: $id, validRowsOnly: $validRowsOnly, includeFlagged: $includeFlagged) {
    __typename
    ... on ApproveBatchSuccess { batch { ...BatchDetailFields } }
    ... on BatchError { code message }
  }
}`);
export const CANCEL_BATCH = graphql(`mutation CancelBatch($id: ID!) {
  result: cancelBatch(id: $id) {
    __typename
    ... on CancelBatchSuccess { batch { ...BatchDetailFields } }
    ... on BatchError { code message }
  }
}`);
export const RETRY_FAILED = graphql(`mutation RetryFailedItems($id: ID!) {
  result: retryFailedItems(id: $id) {
    __typename
    ... on RetryFailedItemsSuccess { batch { ...BatchDetailFields } }
    ... on BatchError { code message }
  }
}`);
export const PAUSE_BATCH = graphql(`mutation PauseBatch($id: ID!) {
  result: pauseBatch(id: $id) {
    __typename
    ... on PauseBatchSuccess { batch { ...BatchDetailFields } }
    ... on BatchError { code message }
  }
}`);
export const RESUME_BATCH = graphql(`mutation ResumeBatch($id: ID!) {
  result: resumeBatch(id: $id) {
    __typename
    ... on ResumeBatchSuccess { batch { ...BatchDetailFields } }
    ... on BatchError { code message }
  }
}`);

export type LifecycleResult =
  | { __typename: 'BatchError'; code: string; message: string }
  | { __typename: string; batch: BatchDetail };

graphql(`fragment PaymentFields on Payment {
  paymentId reference status trackingStatus provider amount { value currency } commission { value currency }
  recipient { key value } batchId batchRow createdAt errorCode errorMessage upstreamErrorCode
  history { status source changedAt recordedAt errorCode errorMessage }
}`);

export const PAYMENT = graphql(`query Payment($paymentId: ID!) { payment(paymentId: $paymentId) { ...PaymentFields } }`);

/** The gateway's own records by the payer's reference (every attempt of the row), newest first. */
export const SEARCH_BY_REFERENCE = graphql(`query PaymentsByReference($reference: String!, $first: Int) {
  searchPayments(reference: $reference, first: $first) { edges { node { ...PaymentFields } } }
}`);

/** Rows finished for good: nothing more will happen to them without a person. */
export const FINAL_ITEM_STATUSES = ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'NEEDS_REVIEW'];
export const FINISHED_BATCH_STATUSES = ['COMPLETED', 'COMPLETED_WITH_FAILURES', 'REJECTED', 'CANCELLED'];
export const BATCH_STATUSES = ['VALIDATING', 'VALIDATED', 'REJECTED', 'RUNNING', 'COMPLETED', 'COMPLETED_WITH_FAILURES', 'CANCELLED'];
export const ITEM_STATUSES = ['PENDING', 'CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'NEEDS_REVIEW', 'INVALID', 'DUPLICATE'];

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
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  trigger: string;
  requestedBy: string | null;
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
  resolution: 'OPEN' | 'REPAIRED';
}

graphql(`fragment ReconciliationSideFields on ReconciliationSide {
  count amount { value currency } commission { value currency } paidCount paidAmount { value currency }
}`);

graphql(`fragment ReconciliationRunFields on ReconciliationRun {
  id from to timeZone status trigger requestedBy phase daysRead daysToRead upstreamRequests
  upstream { ...ReconciliationSideFields } gateway { ...ReconciliationSideFields } matchedCount discrepancyCount openCount repairedCount
  countsByCode { code count } error startedAt finishedAt
}`);

export const RECONCILIATION_RUNS = graphql(`query ReconciliationRuns($status: ReconciliationStatus, $first: Int, $after: String) {
  reconciliationRuns(status: $status, first: $first, after: $after) {
    edges { node { ...ReconciliationRunFields } }
    pageInfo { hasNextPage endCursor }
  }
}`);

export const RECONCILIATION_RUN = graphql(`query ReconciliationRun($id: ID!) { reconciliationRun(id: $id) { ...ReconciliationRunFields } }`);

export const RUN_DISCREPANCIES = graphql(`query RunDiscrepancies($id: ID!, $code: DiscrepancyCode, $first: Int, $after: String) {
  reconciliationRun(id: $id) {
    id
    discrepancies(code: $code, first: $first, after: $after) {
      edges { node { id code description paymentId batchId batchRow gatewayValue upstreamValue finalSide amount { value currency } resolution } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`);

export const START_RECONCILIATION = graphql(`mutation StartReconciliation($from: Date, $to: Date) {
  startReconciliation(from: $from, to: $to) {
    __typename
    ... on StartReconciliationSuccess { run { ...ReconciliationRunFields } }
    ... on ReconciliationPeriodError { message field }
  }
}`);

export type StartReconciliationResult =
  | { __typename: 'StartReconciliationSuccess'; run: ReconciliationRun }
  | { __typename: 'ReconciliationPeriodError'; message: string; field: string };

export const RECONCILIATION_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'];
export const DISCREPANCY_CODES = ['MISSING_UPSTREAM', 'UNKNOWN_TO_GATEWAY', 'STATUS_DIFFERS', 'AMOUNT_DIFFERS', 'COMMISSION_DIFFERS', 'RECIPIENT_DIFFERS', 'NOT_FINAL'];

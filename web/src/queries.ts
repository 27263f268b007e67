/** The GraphQL operations the page sends, with the shapes they return (schema.graphql). */

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

const SUMMARY = `id name fileName status rowCount validCount invalidCount warningCount
  totalAmount { value currency } createdAt approvedAt counts { status count amount }`;

const DETAIL = `${SUMMARY} validRowsOnly forced flaggedCount flaggedAmount { value currency } includeFlagged
  overlaps { batchId rows amount } uploadedBy approvedBy startedAt finishedAt cancelledAt
  throughput secondsLeft resultsUrl waiting { reason since by shortfall { value currency } waitingFor }`;

export const BATCHES = `query Batches($status: BatchStatus, $first: Int, $after: String) {
  batches(status: $status, first: $first, after: $after) {
    edges { node { ${SUMMARY} } }
    pageInfo { hasNextPage endCursor }
  }
}`;

export const BATCH = `query Batch($id: ID!) { batch(id: $id) { ${DETAIL} } }`;

export const BATCH_PROBLEMS = `query BatchProblems($id: ID!, $limit: Int) {
  batch(id: $id) { id problems(limit: $limit) { line column code severity message } }
}`;

export const BATCH_ITEMS = `query BatchItems($id: ID!, $status: BatchItemStatus, $first: Int, $after: String) {
  batch(id: $id) {
    id
    items(status: $status, first: $first, after: $after) {
      edges { node { line reference paymentId attempt status provider amount { value currency } recipient { key value } errorCode errorMessage
        cancelledAfterCreate { expiresAt openUpstream paymentStatus } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

export const BATCH_PROGRESS = `subscription BatchProgress($id: ID!) { batchProgress(id: $id) { ${DETAIL} } }`;

export const IMPORT_BATCH = `mutation ImportBatch($file: File!) {
  importBatch(file: $file) {
    __typename
    ... on ImportBatchSuccess { batch { ${DETAIL} } }
    ... on BatchError { code message }
  }
}`;

const lifecycle = (name: string, args: string, call: string) => `mutation ${name}(${args}) {
  result: ${call} {
    __typename
    ... on ${name}Success { batch { ${DETAIL} } }
    ... on BatchError { code message }
  }
}`;

export const APPROVE_BATCH = lifecycle(
  'ApproveBatch',
  '$id: ID!, $validRowsOnly: Boolean, $includeFlagged: Boolean',
  'approveBatch(id: $id, validRowsOnly: $validRowsOnly, includeFlagged: $includeFlagged)',
);
export const CANCEL_BATCH = lifecycle('CancelBatch', '$id: ID!', 'cancelBatch(id: $id)');
export const RETRY_FAILED = lifecycle('RetryFailedItems', '$id: ID!', 'retryFailedItems(id: $id)');
export const PAUSE_BATCH = lifecycle('PauseBatch', '$id: ID!', 'pauseBatch(id: $id)');
export const RESUME_BATCH = lifecycle('ResumeBatch', '$id: ID!', 'resumeBatch(id: $id)');

export type LifecycleResult =
  | { __typename: 'BatchError'; code: string; message: string }
  | { __typename: string; batch: BatchDetail };

const PAYMENT_FIELDS = `paymentId reference status trackingStatus provider amount { value currency } commission { value currency }
  recipient { key value } batchId batchRow createdAt errorCode errorMessage upstreamErrorCode
  history { status source changedAt recordedAt errorCode errorMessage }`;

export const PAYMENT = `query Payment($paymentId: ID!) { payment(paymentId: $paymentId) { ${PAYMENT_FIELDS} } }`;

/** The gateway's own records by the payer's reference (every attempt of the row), newest first. */
export const SEARCH_BY_REFERENCE = `query PaymentsByReference($reference: String!, $first: Int) {
  searchPayments(reference: $reference, first: $first) { edges { node { ${PAYMENT_FIELDS} } } }
}`;

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
  resolution: 'OPEN' | 'REPAIRED';
}

const SIDE = 'count amount { value currency } commission { value currency } paidCount paidAmount { value currency }';
const RUN = `id from to timeZone status trigger requestedBy phase daysRead daysToRead upstreamRequests
  upstream { ${SIDE} } gateway { ${SIDE} } matchedCount discrepancyCount openCount repairedCount
  countsByCode { code count } error startedAt finishedAt`;

export const RECONCILIATION_RUNS = `query ReconciliationRuns($status: ReconciliationStatus, $first: Int, $after: String) {
  reconciliationRuns(status: $status, first: $first, after: $after) {
    edges { node { ${RUN} } }
    pageInfo { hasNextPage endCursor }
  }
}`;

export const RECONCILIATION_RUN = `query ReconciliationRun($id: ID!) { reconciliationRun(id: $id) { ${RUN} } }`;

export const RUN_DISCREPANCIES = `query RunDiscrepancies($id: ID!, $code: DiscrepancyCode, $first: Int, $after: String) {
  reconciliationRun(id: $id) {
    id
    discrepancies(code: $code, first: $first, after: $after) {
      edges { node { id code description paymentId batchId batchRow gatewayValue upstreamValue finalSide amount { value currency } resolution } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

export const START_RECONCILIATION = `mutation StartReconciliation($from: Date, $to: Date) {
  startReconciliation(from: $from, to: $to) {
    __typename
    ... on StartReconciliationSuccess { run { ${RUN} } }
    ... on ReconciliationPeriodError { message field }
  }
}`;

export type StartReconciliationResult =
  | { __typename: 'StartReconciliationSuccess'; run: ReconciliationRun }
  | { __typename: 'ReconciliationPeriodError'; message: string; field: 'FROM' | 'TO' | 'TIME_ZONE' };

export const RECONCILIATION_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'];
export const DISCREPANCY_CODES = ['MISSING_UPSTREAM', 'UNKNOWN_TO_GATEWAY', 'STATUS_DIFFERS', 'AMOUNT_DIFFERS', 'COMMISSION_DIFFERS', 'RECIPIENT_DIFFERS', 'NOT_FINAL'];

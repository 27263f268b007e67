/* eslint-disable */
import * as types from './graphql.ts';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query Hello { __typename }": typeof types.HelloDocument,
    "mutation ProbeApprove($id: ID!) { approveBatch(id: $id) { __typename } }": typeof types.ProbeApproveDocument,
    "mutation ProbeRetry($id: ID!) { retryFailedItems(id: $id) { __typename } }": typeof types.ProbeRetryDocument,
    "query Me { me { identity approvesOwnBatches } }": typeof types.MeDocument,
    "fragment BatchSummaryFields on Batch {\n  id name fileName status rowCount validCount invalidCount warningCount\n  totalAmount { value currency } createdAt approvedAt counts { status count amount }\n}": typeof types.BatchSummaryFieldsFragmentDoc,
    "fragment BatchDetailFields on Batch {\n  ...BatchSummaryFields\n  validRowsOnly forced flaggedCount flaggedAmount { value currency } includeFlagged\n  overlaps { batchId rows amount } uploadedBy approvedBy startedAt finishedAt cancelledAt\n  throughput secondsLeft resultsUrl waiting { reason since by shortfall { value currency } waitingFor }\n}": typeof types.BatchDetailFieldsFragmentDoc,
    "query Batches($status: BatchStatus, $first: Int, $after: String) {\n  batches(status: $status, first: $first, after: $after) {\n    edges { node { ...BatchSummaryFields } }\n    pageInfo { hasNextPage endCursor }\n  }\n}": typeof types.BatchesDocument,
    "query Batch($id: ID!) { batch(id: $id) { ...BatchDetailFields } }": typeof types.BatchDocument,
    "query BatchProblems($id: ID!, $limit: Int) {\n  batch(id: $id) { id problems(limit: $limit) { line column code severity message } }\n}": typeof types.BatchProblemsDocument,
    "query BatchItems($id: ID!, $status: BatchItemStatus, $first: Int, $after: String) {\n  batch(id: $id) {\n    id\n    items(status: $status, first: $first, after: $after) {\n      edges { node { line reference paymentId attempt status provider amount { value currency } recipient { key value } errorCode errorMessage\n        cancelledAfterCreate { expiresAt openUpstream paymentStatus } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n}": typeof types.BatchItemsDocument,
    "subscription BatchProgress($id: ID!) { batchProgress(id: $id) { ...BatchDetailFields } }": typeof types.BatchProgressDocument,
    "mutation ImportBatch($file: File!) {\n  importBatch(file: $file) {\n    __typename\n    ... on ImportBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": typeof types.ImportBatchDocument,
    "mutation ApproveBatch($id: ID!, $validRowsOnly: Boolean, $includeFlagged: Boolean) {\n  result: approveBatch(id: $id, validRowsOnly: $validRowsOnly, includeFlagged: $includeFlagged) {\n    __typename\n    ... on ApproveBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": typeof types.ApproveBatchDocument,
    "mutation CancelBatch($id: ID!) {\n  result: cancelBatch(id: $id) {\n    __typename\n    ... on CancelBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": typeof types.CancelBatchDocument,
    "mutation RetryFailedItems($id: ID!) {\n  result: retryFailedItems(id: $id) {\n    __typename\n    ... on RetryFailedItemsSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": typeof types.RetryFailedItemsDocument,
    "mutation PauseBatch($id: ID!) {\n  result: pauseBatch(id: $id) {\n    __typename\n    ... on PauseBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": typeof types.PauseBatchDocument,
    "mutation ResumeBatch($id: ID!) {\n  result: resumeBatch(id: $id) {\n    __typename\n    ... on ResumeBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": typeof types.ResumeBatchDocument,
    "fragment PaymentFields on Payment {\n  paymentId reference status trackingStatus provider amount { value currency } commission { value currency }\n  recipient { key value } batchId batchRow createdAt errorCode errorMessage upstreamErrorCode\n  history { status source changedAt recordedAt errorCode errorMessage }\n}": typeof types.PaymentFieldsFragmentDoc,
    "query Payment($paymentId: ID!) { payment(paymentId: $paymentId) { ...PaymentFields } }": typeof types.PaymentDocument,
    "query PaymentsByReference($reference: String!, $first: Int) {\n  searchPayments(reference: $reference, first: $first) { edges { node { ...PaymentFields } } }\n}": typeof types.PaymentsByReferenceDocument,
    "fragment ReconciliationSideFields on ReconciliationSide {\n  count amount { value currency } commission { value currency } paidCount paidAmount { value currency }\n}": typeof types.ReconciliationSideFieldsFragmentDoc,
    "fragment ReconciliationRunFields on ReconciliationRun {\n  id from to timeZone status trigger requestedBy phase daysRead daysToRead upstreamRequests\n  upstream { ...ReconciliationSideFields } gateway { ...ReconciliationSideFields } matchedCount discrepancyCount openCount repairedCount\n  countsByCode { code count } error startedAt finishedAt\n}": typeof types.ReconciliationRunFieldsFragmentDoc,
    "query ReconciliationRuns($status: ReconciliationStatus, $first: Int, $after: String) {\n  reconciliationRuns(status: $status, first: $first, after: $after) {\n    edges { node { ...ReconciliationRunFields } }\n    pageInfo { hasNextPage endCursor }\n  }\n}": typeof types.ReconciliationRunsDocument,
    "query ReconciliationRun($id: ID!) { reconciliationRun(id: $id) { ...ReconciliationRunFields } }": typeof types.ReconciliationRunDocument,
    "query RunDiscrepancies($id: ID!, $code: DiscrepancyCode, $first: Int, $after: String) {\n  reconciliationRun(id: $id) {\n    id\n    discrepancies(code: $code, first: $first, after: $after) {\n      edges { node { id code description paymentId batchId batchRow gatewayValue upstreamValue finalSide amount { value currency } resolution } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n}": typeof types.RunDiscrepanciesDocument,
    "mutation StartReconciliation($from: Date, $to: Date) {\n  startReconciliation(from: $from, to: $to) {\n    __typename\n    ... on StartReconciliationSuccess { run { ...ReconciliationRunFields } }\n    ... on ReconciliationPeriodError { message field }\n  }\n}": typeof types.StartReconciliationDocument,
    "query ReviewItems($id: ID!) {\n  batch(id: $id) { id items(status: NEEDS_REVIEW, first: 100) { edges { node { line paymentId attempt status provider amount { value currency } errorCode errorMessage } } } }\n}": typeof types.ReviewItemsDocument,
    "mutation Review($id: ID!) { result: reviewBatchItems(id: $id) {\n  __typename\n  ... on ReviewBatchItemsSuccess { review { settled unsettled rows { line paymentId verdict status } } }\n  ... on BatchError { code message }\n} }": typeof types.ReviewDocument,
    "mutation Mark($id: ID!, $line: Int!, $mark: ReviewMark!, $reason: String!) { result: markBatchItem(id: $id, line: $line, mark: $mark, reason: $reason) {\n  __typename\n  ... on MarkBatchItemSuccess { item { line status } }\n  ... on BatchError { code message }\n} }": typeof types.MarkDocument,
};
const documents: Documents = {
    "query Hello { __typename }": types.HelloDocument,
    "mutation ProbeApprove($id: ID!) { approveBatch(id: $id) { __typename } }": types.ProbeApproveDocument,
    "mutation ProbeRetry($id: ID!) { retryFailedItems(id: $id) { __typename } }": types.ProbeRetryDocument,
    "query Me { me { identity approvesOwnBatches } }": types.MeDocument,
    "fragment BatchSummaryFields on Batch {\n  id name fileName status rowCount validCount invalidCount warningCount\n  totalAmount { value currency } createdAt approvedAt counts { status count amount }\n}": types.BatchSummaryFieldsFragmentDoc,
    "fragment BatchDetailFields on Batch {\n  ...BatchSummaryFields\n  validRowsOnly forced flaggedCount flaggedAmount { value currency } includeFlagged\n  overlaps { batchId rows amount } uploadedBy approvedBy startedAt finishedAt cancelledAt\n  throughput secondsLeft resultsUrl waiting { reason since by shortfall { value currency } waitingFor }\n}": types.BatchDetailFieldsFragmentDoc,
    "query Batches($status: BatchStatus, $first: Int, $after: String) {\n  batches(status: $status, first: $first, after: $after) {\n    edges { node { ...BatchSummaryFields } }\n    pageInfo { hasNextPage endCursor }\n  }\n}": types.BatchesDocument,
    "query Batch($id: ID!) { batch(id: $id) { ...BatchDetailFields } }": types.BatchDocument,
    "query BatchProblems($id: ID!, $limit: Int) {\n  batch(id: $id) { id problems(limit: $limit) { line column code severity message } }\n}": types.BatchProblemsDocument,
    "query BatchItems($id: ID!, $status: BatchItemStatus, $first: Int, $after: String) {\n  batch(id: $id) {\n    id\n    items(status: $status, first: $first, after: $after) {\n      edges { node { line reference paymentId attempt status provider amount { value currency } recipient { key value } errorCode errorMessage\n        cancelledAfterCreate { expiresAt openUpstream paymentStatus } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n}": types.BatchItemsDocument,
    "subscription BatchProgress($id: ID!) { batchProgress(id: $id) { ...BatchDetailFields } }": types.BatchProgressDocument,
    "mutation ImportBatch($file: File!) {\n  importBatch(file: $file) {\n    __typename\n    ... on ImportBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": types.ImportBatchDocument,
    "mutation ApproveBatch($id: ID!, $validRowsOnly: Boolean, $includeFlagged: Boolean) {\n  result: approveBatch(id: $id, validRowsOnly: $validRowsOnly, includeFlagged: $includeFlagged) {\n    __typename\n    ... on ApproveBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": types.ApproveBatchDocument,
    "mutation CancelBatch($id: ID!) {\n  result: cancelBatch(id: $id) {\n    __typename\n    ... on CancelBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": types.CancelBatchDocument,
    "mutation RetryFailedItems($id: ID!) {\n  result: retryFailedItems(id: $id) {\n    __typename\n    ... on RetryFailedItemsSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": types.RetryFailedItemsDocument,
    "mutation PauseBatch($id: ID!) {\n  result: pauseBatch(id: $id) {\n    __typename\n    ... on PauseBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": types.PauseBatchDocument,
    "mutation ResumeBatch($id: ID!) {\n  result: resumeBatch(id: $id) {\n    __typename\n    ... on ResumeBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}": types.ResumeBatchDocument,
    "fragment PaymentFields on Payment {\n  paymentId reference status trackingStatus provider amount { value currency } commission { value currency }\n  recipient { key value } batchId batchRow createdAt errorCode errorMessage upstreamErrorCode\n  history { status source changedAt recordedAt errorCode errorMessage }\n}": types.PaymentFieldsFragmentDoc,
    "query Payment($paymentId: ID!) { payment(paymentId: $paymentId) { ...PaymentFields } }": types.PaymentDocument,
    "query PaymentsByReference($reference: String!, $first: Int) {\n  searchPayments(reference: $reference, first: $first) { edges { node { ...PaymentFields } } }\n}": types.PaymentsByReferenceDocument,
    "fragment ReconciliationSideFields on ReconciliationSide {\n  count amount { value currency } commission { value currency } paidCount paidAmount { value currency }\n}": types.ReconciliationSideFieldsFragmentDoc,
    "fragment ReconciliationRunFields on ReconciliationRun {\n  id from to timeZone status trigger requestedBy phase daysRead daysToRead upstreamRequests\n  upstream { ...ReconciliationSideFields } gateway { ...ReconciliationSideFields } matchedCount discrepancyCount openCount repairedCount\n  countsByCode { code count } error startedAt finishedAt\n}": types.ReconciliationRunFieldsFragmentDoc,
    "query ReconciliationRuns($status: ReconciliationStatus, $first: Int, $after: String) {\n  reconciliationRuns(status: $status, first: $first, after: $after) {\n    edges { node { ...ReconciliationRunFields } }\n    pageInfo { hasNextPage endCursor }\n  }\n}": types.ReconciliationRunsDocument,
    "query ReconciliationRun($id: ID!) { reconciliationRun(id: $id) { ...ReconciliationRunFields } }": types.ReconciliationRunDocument,
    "query RunDiscrepancies($id: ID!, $code: DiscrepancyCode, $first: Int, $after: String) {\n  reconciliationRun(id: $id) {\n    id\n    discrepancies(code: $code, first: $first, after: $after) {\n      edges { node { id code description paymentId batchId batchRow gatewayValue upstreamValue finalSide amount { value currency } resolution } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n}": types.RunDiscrepanciesDocument,
    "mutation StartReconciliation($from: Date, $to: Date) {\n  startReconciliation(from: $from, to: $to) {\n    __typename\n    ... on StartReconciliationSuccess { run { ...ReconciliationRunFields } }\n    ... on ReconciliationPeriodError { message field }\n  }\n}": types.StartReconciliationDocument,
    "query ReviewItems($id: ID!) {\n  batch(id: $id) { id items(status: NEEDS_REVIEW, first: 100) { edges { node { line paymentId attempt status provider amount { value currency } errorCode errorMessage } } } }\n}": types.ReviewItemsDocument,
    "mutation Review($id: ID!) { result: reviewBatchItems(id: $id) {\n  __typename\n  ... on ReviewBatchItemsSuccess { review { settled unsettled rows { line paymentId verdict status } } }\n  ... on BatchError { code message }\n} }": types.ReviewDocument,
    "mutation Mark($id: ID!, $line: Int!, $mark: ReviewMark!, $reason: String!) { result: markBatchItem(id: $id, line: $line, mark: $mark, reason: $reason) {\n  __typename\n  ... on MarkBatchItemSuccess { item { line status } }\n  ... on BatchError { code message }\n} }": types.MarkDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Hello { __typename }"): (typeof documents)["query Hello { __typename }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ProbeApprove($id: ID!) { approveBatch(id: $id) { __typename } }"): (typeof documents)["mutation ProbeApprove($id: ID!) { approveBatch(id: $id) { __typename } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ProbeRetry($id: ID!) { retryFailedItems(id: $id) { __typename } }"): (typeof documents)["mutation ProbeRetry($id: ID!) { retryFailedItems(id: $id) { __typename } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Me { me { identity approvesOwnBatches } }"): (typeof documents)["query Me { me { identity approvesOwnBatches } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment BatchSummaryFields on Batch {\n  id name fileName status rowCount validCount invalidCount warningCount\n  totalAmount { value currency } createdAt approvedAt counts { status count amount }\n}"): (typeof documents)["fragment BatchSummaryFields on Batch {\n  id name fileName status rowCount validCount invalidCount warningCount\n  totalAmount { value currency } createdAt approvedAt counts { status count amount }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment BatchDetailFields on Batch {\n  ...BatchSummaryFields\n  validRowsOnly forced flaggedCount flaggedAmount { value currency } includeFlagged\n  overlaps { batchId rows amount } uploadedBy approvedBy startedAt finishedAt cancelledAt\n  throughput secondsLeft resultsUrl waiting { reason since by shortfall { value currency } waitingFor }\n}"): (typeof documents)["fragment BatchDetailFields on Batch {\n  ...BatchSummaryFields\n  validRowsOnly forced flaggedCount flaggedAmount { value currency } includeFlagged\n  overlaps { batchId rows amount } uploadedBy approvedBy startedAt finishedAt cancelledAt\n  throughput secondsLeft resultsUrl waiting { reason since by shortfall { value currency } waitingFor }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Batches($status: BatchStatus, $first: Int, $after: String) {\n  batches(status: $status, first: $first, after: $after) {\n    edges { node { ...BatchSummaryFields } }\n    pageInfo { hasNextPage endCursor }\n  }\n}"): (typeof documents)["query Batches($status: BatchStatus, $first: Int, $after: String) {\n  batches(status: $status, first: $first, after: $after) {\n    edges { node { ...BatchSummaryFields } }\n    pageInfo { hasNextPage endCursor }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Batch($id: ID!) { batch(id: $id) { ...BatchDetailFields } }"): (typeof documents)["query Batch($id: ID!) { batch(id: $id) { ...BatchDetailFields } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BatchProblems($id: ID!, $limit: Int) {\n  batch(id: $id) { id problems(limit: $limit) { line column code severity message } }\n}"): (typeof documents)["query BatchProblems($id: ID!, $limit: Int) {\n  batch(id: $id) { id problems(limit: $limit) { line column code severity message } }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BatchItems($id: ID!, $status: BatchItemStatus, $first: Int, $after: String) {\n  batch(id: $id) {\n    id\n    items(status: $status, first: $first, after: $after) {\n      edges { node { line reference paymentId attempt status provider amount { value currency } recipient { key value } errorCode errorMessage\n        cancelledAfterCreate { expiresAt openUpstream paymentStatus } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n}"): (typeof documents)["query BatchItems($id: ID!, $status: BatchItemStatus, $first: Int, $after: String) {\n  batch(id: $id) {\n    id\n    items(status: $status, first: $first, after: $after) {\n      edges { node { line reference paymentId attempt status provider amount { value currency } recipient { key value } errorCode errorMessage\n        cancelledAfterCreate { expiresAt openUpstream paymentStatus } } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription BatchProgress($id: ID!) { batchProgress(id: $id) { ...BatchDetailFields } }"): (typeof documents)["subscription BatchProgress($id: ID!) { batchProgress(id: $id) { ...BatchDetailFields } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ImportBatch($file: File!) {\n  importBatch(file: $file) {\n    __typename\n    ... on ImportBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"): (typeof documents)["mutation ImportBatch($file: File!) {\n  importBatch(file: $file) {\n    __typename\n    ... on ImportBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ApproveBatch($id: ID!, $validRowsOnly: Boolean, $includeFlagged: Boolean) {\n  result: approveBatch(id: $id, validRowsOnly: $validRowsOnly, includeFlagged: $includeFlagged) {\n    __typename\n    ... on ApproveBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"): (typeof documents)["mutation ApproveBatch($id: ID!, $validRowsOnly: Boolean, $includeFlagged: Boolean) {\n  result: approveBatch(id: $id, validRowsOnly: $validRowsOnly, includeFlagged: $includeFlagged) {\n    __typename\n    ... on ApproveBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CancelBatch($id: ID!) {\n  result: cancelBatch(id: $id) {\n    __typename\n    ... on CancelBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"): (typeof documents)["mutation CancelBatch($id: ID!) {\n  result: cancelBatch(id: $id) {\n    __typename\n    ... on CancelBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation RetryFailedItems($id: ID!) {\n  result: retryFailedItems(id: $id) {\n    __typename\n    ... on RetryFailedItemsSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"): (typeof documents)["mutation RetryFailedItems($id: ID!) {\n  result: retryFailedItems(id: $id) {\n    __typename\n    ... on RetryFailedItemsSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation PauseBatch($id: ID!) {\n  result: pauseBatch(id: $id) {\n    __typename\n    ... on PauseBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"): (typeof documents)["mutation PauseBatch($id: ID!) {\n  result: pauseBatch(id: $id) {\n    __typename\n    ... on PauseBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation ResumeBatch($id: ID!) {\n  result: resumeBatch(id: $id) {\n    __typename\n    ... on ResumeBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"): (typeof documents)["mutation ResumeBatch($id: ID!) {\n  result: resumeBatch(id: $id) {\n    __typename\n    ... on ResumeBatchSuccess { batch { ...BatchDetailFields } }\n    ... on BatchError { code message }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment PaymentFields on Payment {\n  paymentId reference status trackingStatus provider amount { value currency } commission { value currency }\n  recipient { key value } batchId batchRow createdAt errorCode errorMessage upstreamErrorCode\n  history { status source changedAt recordedAt errorCode errorMessage }\n}"): (typeof documents)["fragment PaymentFields on Payment {\n  paymentId reference status trackingStatus provider amount { value currency } commission { value currency }\n  recipient { key value } batchId batchRow createdAt errorCode errorMessage upstreamErrorCode\n  history { status source changedAt recordedAt errorCode errorMessage }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Payment($paymentId: ID!) { payment(paymentId: $paymentId) { ...PaymentFields } }"): (typeof documents)["query Payment($paymentId: ID!) { payment(paymentId: $paymentId) { ...PaymentFields } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query PaymentsByReference($reference: String!, $first: Int) {\n  searchPayments(reference: $reference, first: $first) { edges { node { ...PaymentFields } } }\n}"): (typeof documents)["query PaymentsByReference($reference: String!, $first: Int) {\n  searchPayments(reference: $reference, first: $first) { edges { node { ...PaymentFields } } }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment ReconciliationSideFields on ReconciliationSide {\n  count amount { value currency } commission { value currency } paidCount paidAmount { value currency }\n}"): (typeof documents)["fragment ReconciliationSideFields on ReconciliationSide {\n  count amount { value currency } commission { value currency } paidCount paidAmount { value currency }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment ReconciliationRunFields on ReconciliationRun {\n  id from to timeZone status trigger requestedBy phase daysRead daysToRead upstreamRequests\n  upstream { ...ReconciliationSideFields } gateway { ...ReconciliationSideFields } matchedCount discrepancyCount openCount repairedCount\n  countsByCode { code count } error startedAt finishedAt\n}"): (typeof documents)["fragment ReconciliationRunFields on ReconciliationRun {\n  id from to timeZone status trigger requestedBy phase daysRead daysToRead upstreamRequests\n  upstream { ...ReconciliationSideFields } gateway { ...ReconciliationSideFields } matchedCount discrepancyCount openCount repairedCount\n  countsByCode { code count } error startedAt finishedAt\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ReconciliationRuns($status: ReconciliationStatus, $first: Int, $after: String) {\n  reconciliationRuns(status: $status, first: $first, after: $after) {\n    edges { node { ...ReconciliationRunFields } }\n    pageInfo { hasNextPage endCursor }\n  }\n}"): (typeof documents)["query ReconciliationRuns($status: ReconciliationStatus, $first: Int, $after: String) {\n  reconciliationRuns(status: $status, first: $first, after: $after) {\n    edges { node { ...ReconciliationRunFields } }\n    pageInfo { hasNextPage endCursor }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ReconciliationRun($id: ID!) { reconciliationRun(id: $id) { ...ReconciliationRunFields } }"): (typeof documents)["query ReconciliationRun($id: ID!) { reconciliationRun(id: $id) { ...ReconciliationRunFields } }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RunDiscrepancies($id: ID!, $code: DiscrepancyCode, $first: Int, $after: String) {\n  reconciliationRun(id: $id) {\n    id\n    discrepancies(code: $code, first: $first, after: $after) {\n      edges { node { id code description paymentId batchId batchRow gatewayValue upstreamValue finalSide amount { value currency } resolution } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n}"): (typeof documents)["query RunDiscrepancies($id: ID!, $code: DiscrepancyCode, $first: Int, $after: String) {\n  reconciliationRun(id: $id) {\n    id\n    discrepancies(code: $code, first: $first, after: $after) {\n      edges { node { id code description paymentId batchId batchRow gatewayValue upstreamValue finalSide amount { value currency } resolution } }\n      pageInfo { hasNextPage endCursor }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation StartReconciliation($from: Date, $to: Date) {\n  startReconciliation(from: $from, to: $to) {\n    __typename\n    ... on StartReconciliationSuccess { run { ...ReconciliationRunFields } }\n    ... on ReconciliationPeriodError { message field }\n  }\n}"): (typeof documents)["mutation StartReconciliation($from: Date, $to: Date) {\n  startReconciliation(from: $from, to: $to) {\n    __typename\n    ... on StartReconciliationSuccess { run { ...ReconciliationRunFields } }\n    ... on ReconciliationPeriodError { message field }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ReviewItems($id: ID!) {\n  batch(id: $id) { id items(status: NEEDS_REVIEW, first: 100) { edges { node { line paymentId attempt status provider amount { value currency } errorCode errorMessage } } } }\n}"): (typeof documents)["query ReviewItems($id: ID!) {\n  batch(id: $id) { id items(status: NEEDS_REVIEW, first: 100) { edges { node { line paymentId attempt status provider amount { value currency } errorCode errorMessage } } } }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Review($id: ID!) { result: reviewBatchItems(id: $id) {\n  __typename\n  ... on ReviewBatchItemsSuccess { review { settled unsettled rows { line paymentId verdict status } } }\n  ... on BatchError { code message }\n} }"): (typeof documents)["mutation Review($id: ID!) { result: reviewBatchItems(id: $id) {\n  __typename\n  ... on ReviewBatchItemsSuccess { review { settled unsettled rows { line paymentId verdict status } } }\n  ... on BatchError { code message }\n} }"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation Mark($id: ID!, $line: Int!, $mark: ReviewMark!, $reason: String!) { result: markBatchItem(id: $id, line: $line, mark: $mark, reason: $reason) {\n  __typename\n  ... on MarkBatchItemSuccess { item { line status } }\n  ... on BatchError { code message }\n} }"): (typeof documents)["mutation Mark($id: ID!, $line: Int!, $mark: ReviewMark!, $reason: String!) { result: markBatchItem(id: $id, line: $line, mark: $mark, reason: $reason) {\n  __typename\n  ... on MarkBatchItemSuccess { item { line status } }\n  ... on BatchError { code message }\n} }"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;
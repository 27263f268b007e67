/**
 * What the rest of the gateway uses of batch/: the services the composition root wires,
 * the state names adapters show, and the few operations other domains ask of it. Anything
 * not exported here (the rooms' SQL above all) is batch/'s own business.
 */
export { CardDataVault } from './card-data.ts';

export { baseColumns } from './import/read/csv-columns.ts';
export { BatchImporter, type ValidationReport } from './import/batch-importer.ts';
export { payeeIdProblem } from './import/validate-row.ts';
export { FileKeyHash } from './import/file-key.ts';
export { spoolPart, type SpooledPart } from './import/upload-spool.ts';

export { approvalRefusal, batchActions, type BatchAction } from './states/batch-actions.ts';
export { batchErrorCodes, batchErrorMeanings } from './lifecycle/batch-error-codes.ts';
export { BatchEvents } from './events/batch-events.ts';
export { BatchService, BatchStateError, type BatchProgress } from './lifecycle/batch-service.ts';
export { BatchSchedule } from './lifecycle/batch-schedule.ts';
export {
  approvableStates,
  batchStates,
  cancellableStates,
  pauseReasons,
  payingStates,
  restingStates,
  retryableStates,
} from './states/batch-states.ts';
export { selectApprovalRows } from './lifecycle/approval-rows.ts';
export { readOpenBreaker, readRetryingRows, waitOf, waitReasons, waitingNow, type BatchWait } from './lifecycle/batch-waiting.ts';

export {
  activeItemStatuses,
  cancelCodes,
  cancelledStatus,
  failedItemStatuses,
  notSentItemStatuses,
  retryableItemStatuses,
  rowStates,
} from './states/row-states.ts';
export { settleRowsFromPayments } from './lifecycle/settle-rows.ts';
export { countOverlaps, type BatchOverlap } from './rows/sql/count-overlaps.ts';

export { BatchWorker } from './pay/batch-worker.ts';
export { FundsCheck } from './funds/funds-check.ts';

export { MAX_REASON_LENGTH, ReviewService, type ReviewedRow, type ReviewReport } from './review/review-service.ts';
export { reviewMarks, reviewVerdicts, type ReviewMark, type ReviewVerdict } from './states/review-states.ts';

export { exportChunks, exportFormats, exportMediaTypes, reportRows, type ExportFormat } from './export/batch-export.ts';

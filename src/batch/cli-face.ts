/**
 * What the command line's own commands use of batch/: the state tables they read and the
 * importer `payout batch validate` runs. A second face beside batch/index.ts because esbuild's
 * code splitting loads every module a face re-exports, used or not: through index.ts each
 * command would load the worker, the service and GraphQL's pubsub as it starts (the review
 * command's code 109 KB → 615 KB, validate's import 400 → 680 ms). Everything here is also on
 * index.ts; only src/cli imports this file (test/batch/faces.test.ts).
 */
export type { CardDataVault } from './card-data.ts';
export type { ValidationReport } from './import/batch-importer.ts';
/** The importer in a chunk of its own, loaded by the command that runs it (validate, run) alone. */
export const loadImporter = () => import('./import/batch-importer.ts');
export { approvalRefusal, fileErrorsOf } from './states/batch-actions.ts';
export { approvableStates, batchStates, cancellableStates, pauseReasons, retryableStates } from './states/batch-states.ts';
export { activeItemStatuses, failedItemStatuses, notSentItemStatuses, retryableItemStatuses, rowStates } from './states/row-states.ts';
export { reviewMarks } from './states/review-states.ts';

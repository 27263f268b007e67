import { authScopesFor } from '../../../auth/roles.ts';
import { BatchStateError } from '../../../batch/index.ts';
import { recordAudit, requestActor } from '../../../audit/audit.ts';
import { builder } from '../../builder.ts';
import { typedResult } from '../errors.ts';
import { Batch } from './batch.ts';

/*
 * What a batch's life takes from a caller apart from approval, pause, schedule and review
 * (approvals.ts, pause.ts, schedule.ts, review.ts): the upload, cancel, dismiss and paying
 * the failed rows again.
 */

const batchResult = (name: string) => typedResult(name, [BatchStateError], 'batch');

builder.mutationFields((t) => ({
  importBatch: t.field({
    type: Batch,
    description: 'Uploads a payroll CSV (GraphQL multipart request). The batch comes back VALIDATED, or REJECTED with its problems.',
    authScopes: authScopesFor('importBatch'),
    errors: batchResult('ImportBatch'),
    args: {
      file: t.arg({
        type: 'File',
        required: true,
        description: 'The payroll file: CSV, or Excel (.xlsx); the columns of docs/guide/payroll-files.md.',
      }),
      name: t.arg.string({
        description: 'A name for the batch, at most 200 characters; the file’s name when absent.',
        validate: { maxLength: 200 },
      }),
      force: t.arg.boolean({ defaultValue: false, description: 'Import a file whose exact bytes were imported before.' }),
    },
    resolve: async (_root, { file, name, force }, { services, caller, role, via, requestId, client }) => {
      const batch = await services.importer.import({
        source: chunksOf(file.stream()),
        fileName: file.name,
        ...(name == null ? {} : { name }),
        force: force ?? false,
        uploadedBy: caller,
      });
      // Forcing overrides the duplicate-file safeguard: the trail says who did (the import is not one transaction).
      if (force === true) {
        const detail = { fileName: file.name, status: batch.status, rows: batch.rowCount };
        await recordAudit(services.prisma, requestActor({ role, caller, via, requestId, client }), {
          action: 'batch.import.forced',
          batchId: batch.id,
          detail,
        });
      }
      return batch;
    },
  }),
  cancelBatch: t.field({
    type: Batch,
    description:
      'Stops every payment of the batch not yet sent, in every process. Answers once no create or execute for it can leave any process (payments on their way finish and are tracked first): usually at once, at most a call timeout or, with a worker frozen, its lease.',
    authScopes: authScopesFor('cancelBatch'),
    errors: batchResult('CancelBatch'),
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    resolve: (_root, { id }, { services, caller, role, via, requestId, client }) =>
      services.batches.cancel(String(id), requestActor({ role, caller, via, requestId, client })),
  }),
  dismissBatch: t.field({
    type: Batch,
    description:
      'Takes a batch that paid nothing (REJECTED, or discarded: CANCELLED before approval) off the batch list: batches(includeDismissed: true) still shows it, and the audit trail records who (batch.dismiss). Dismissing it again changes nothing.',
    authScopes: authScopesFor('dismissBatch'),
    errors: batchResult('DismissBatch'),
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    resolve: (_root, { id }, { services, caller, role, via, requestId, client }) =>
      services.batches.dismiss(String(id), requestActor({ role, caller, via, requestId, client })),
  }),
  retryFailedItems: t.field({
    type: Batch,
    description: 'Pays FAILED and EXPIRED rows again, each with a new paymentId. NEEDS_REVIEW rows are left to a person.',
    authScopes: authScopesFor('retryFailedItems'),
    errors: batchResult('RetryFailedItems'),
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    resolve: (_root, { id }, { services, caller, role, via, requestId, client }) =>
      services.batches.retryFailed(String(id), requestActor({ role, caller, via, requestId, client })),
  }),
}));

/** Reads any WHATWG stream (yoga's may be a ponyfill that Node's Readable.fromWeb refuses). */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

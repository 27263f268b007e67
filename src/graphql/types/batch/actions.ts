import type { BatchAction } from '../../../batch/index.ts';
import { builder } from '../../builder.ts';
import { Batch } from './batch.ts';

const actionMeanings: Record<BatchAction, { name: string; description: string }> = {
  approve: { name: 'APPROVE', description: 'approveBatch: it passed validation.' },
  'approve-valid-rows': {
    name: 'APPROVE_VALID_ROWS',
    description:
      'approveBatch with validRowsOnly: refused for row errors only (the file itself has none), and a row is valid; only the valid rows are paid.',
  },
  reschedule: { name: 'RESCHEDULE', description: 'rescheduleBatch: scheduled, not yet released.' },
  pause: { name: 'PAUSE', description: 'pauseBatch: running.' },
  resume: { name: 'RESUME', description: 'resumeBatch: paused (by a person or for funds).' },
  cancel: { name: 'CANCEL', description: 'cancelBatch of an approved batch: nothing new is sent; what is in flight ends and is tracked.' },
  discard: {
    name: 'DISCARD',
    description: 'cancelBatch of a batch never approved (being read, or one an approval could start): nothing was sent.',
  },
  dismiss: { name: 'DISMISS', description: 'dismissBatch: it paid nothing and never will.' },
  retry: {
    name: 'RETRY_FAILED',
    description: 'retryFailedItems: finished with FAILED or EXPIRED rows whose recipient details are still held, which are paid again.',
  },
};

const BatchActionEnum = builder.enumType('BatchAction', {
  description: 'Something a person can do to a batch in its state (src/batch/states/batch-actions.ts, from the lifecycle table).',
  values: Object.fromEntries(
    Object.entries(actionMeanings).map(([value, { name, description }]) => [name, { value: value as BatchAction, description }]),
  ),
});

builder.objectField(Batch, 'actions', (t) =>
  t.field({
    type: [BatchActionEnum],
    description:
      "What the batch's state allows now, in the order the page offers them: the lifecycle table's answer, so a client need not test states of its own. Who may do it (roles, another approver than the uploader) is the caller's part, checked by each mutation.",
    resolve: (b, _args, context) => context.services.batches.actions(b),
  }),
);

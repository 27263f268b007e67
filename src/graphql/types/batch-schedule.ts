import { BatchStateError } from '../../batch/index.ts';
import { authScopesFor } from '../../auth/roles.ts';
import { requestActor } from '../../audit/audit.ts';
import { builder } from '../builder.ts';
import { Batch } from './batch.ts';
import { typedResult } from './errors.ts';

builder.objectField(Batch, 'payAt', (t) =>
  t.field({
    type: 'DateTime',
    nullable: true,
    description: 'When a scheduled batch pays (SCHEDULED until then, released by the database clock); kept after it started. Null for a batch approved to pay at once.',
    resolve: (b) => b.payAt,
  }),
);

const batchResult = (name: string) => typedResult(name, [BatchStateError], 'batch');

builder.queryFields((t) => ({
  upcomingPaydays: t.field({
    type: [Batch],
    description: 'Scheduled batches (SCHEDULED), soonest payAt first: what will pay, when, and (forecast) whether the balance covers it.',
    authScopes: { read: true },
    resolve: (_root, _args, { services }) => services.schedule.upcoming(),
  }),
}));

builder.mutationFields((t) => ({
  rescheduleBatch: t.field({
    type: Batch,
    // The roles that may approve: choosing when money leaves is part of approving it.
    description:
      'Moves a SCHEDULED batch’s time to pay (audited as batch.reschedule). The roles that may approve, and not the uploader unless single-user. Past, or beyond SCHEDULE_HORIZON_DAYS: refused. cancelBatch cancels a scheduled batch.',
    authScopes: authScopesFor('approveBatch'),
    errors: batchResult('RescheduleBatch'),
    args: {
      id: t.arg.id({ required: true, description: 'The batch’s id.' }),
      payAt: t.arg({ type: 'DateTime', required: true, description: 'The new time to pay, with its offset.' }),
    },
    resolve: (_root, { id, payAt }, { services, caller, role, requestId, client }) =>
      services.schedule.reschedule(String(id), payAt, requestActor({ role, caller, requestId, client })),
  }),
}));

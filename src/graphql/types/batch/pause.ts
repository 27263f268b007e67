import { BatchStateError, type BatchWait } from '../../../batch/index.ts';
import { authScopesFor } from '../../../auth/roles.ts';
import { requestActor } from '../../../audit/audit.ts';
import { moneyObject } from '../../../money/money-wire.ts';
import { builder } from '../../builder.ts';
import { Money } from '../balance.ts';
import { Batch } from './batch.ts';
import { waitingOf } from './wait-of.ts';
import { typedResult } from '../errors.ts';

const WaitReasonEnum = builder.enumType('WaitReason', {
  description: 'Why an approved batch sends nothing now.',
  values: {
    PERSON: { description: 'Paused by a person (pausedBy); a person resumes it.' },
    FUNDS: {
      description:
        'The partner answered INSUFFICIENT_FUNDS: it resumes by itself once the balance covers the rows left, or a person resumes it.',
    },
    PARTNER_UNREACHABLE: {
      description: 'The partner breaker is open: no answer from the Payout API. It goes on by itself once a probe is answered.',
    },
    PARTNER_THROTTLED: { description: 'The partner breaker is open: the Payout API answers 429 Too Many Requests.' },
    PARTNER_FAILING: { description: 'The partner breaker is open: the Payout API answers 5xx.' },
    PARTNER_RETRYING: {
      description:
        'The breaker is closed, but rows of this batch wait for a retry after a failed call (no answer, 5xx, 429): said from the first retry, before enough failures open the breaker.',
    },
  },
});

const BatchWaitRef = builder.objectRef<BatchWait>('BatchWait').implement({
  description: 'What a paused batch (or one the partner breaker stops) waits for, since when, and why.',
  fields: (t) => ({
    reason: t.field({ type: WaitReasonEnum, description: 'Why it waits.', resolve: (w) => w.reason }),
    since: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Since when it waits; null when not recorded.',
      resolve: (w) => w.since,
    }),
    by: t.string({ nullable: true, description: 'PERSON: who paused it (as uploadedBy and approvedBy name keys).', resolve: (w) => w.by }),
    shortfall: t.field({
      type: Money,
      nullable: true,
      description:
        'FUNDS: what was missing when the balance was last read (the rows left and their estimated commission, less what is available).',
      resolve: (w) => (w.shortfall === null ? null : moneyObject(w.shortfall, 'RUB')),
    }),
    nextCheckAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When the gateway looks again by itself: FUNDS, the next balance read; PARTNER_*, the next probe of the Payout API (it may be past: the probe is due). Null when only a person ends the wait.',
      resolve: (w) => w.nextCheckAt,
    }),
    waitingFor: t.string({ description: 'In words, for a person: what has to happen for it to go on.', resolve: (w) => w.waitingFor }),
  }),
});

builder.objectField(Batch, 'waiting', (t) =>
  t.field({
    type: BatchWaitRef,
    nullable: true,
    description:
      'Set while an approved batch sends nothing: PAUSED (by a person, or for lack of funds), RUNNING while the partner breaker is open, or while its rows wait for a retry after failed calls.',
    resolve: (b, _args, context) => waitingOf(b, context),
  }),
);

const batchResult = (name: string) => typedResult(name, [BatchStateError], 'batch');

builder.mutationFields((t) => ({
  pauseBatch: t.field({
    type: Batch,
    description:
      'Pauses a RUNNING batch: no new payment is sent until resumeBatch; those in flight end their step. Operators and approvers may.',
    authScopes: authScopesFor('pauseBatch'),
    errors: batchResult('PauseBatch'),
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    resolve: (_root, { id }, { services, caller, role, via, requestId, client }) =>
      services.batches.pause(String(id), requestActor({ role, caller, via, requestId, client })),
  }),
  resumeBatch: t.field({
    type: Batch,
    description:
      'Resumes a PAUSED batch, whoever or whatever paused it (a batch paused for funds also resumes by itself once the balance covers the rest); rows that failed for lack of funds are paid under new paymentIds.',
    authScopes: authScopesFor('resumeBatch'),
    errors: batchResult('ResumeBatch'),
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    resolve: (_root, { id }, { services, caller, role, via, requestId, client }) =>
      services.batches.resume(String(id), requestActor({ role, caller, via, requestId, client })),
  }),
}));

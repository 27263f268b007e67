import { BatchStateError, batchStates } from '../../../batch/index.ts';
import { amountInWords } from '../../../money/money-text.ts';
import { decimalText, moneyObject } from '../../../money/money-wire.ts';
import { utcDateTime } from '../../../money/readable-text.ts';
import { Money } from '../balance.ts';
import { authScopesFor } from '../../../auth/roles.ts';
import { requestActor } from '../../../audit/audit.ts';
import { builder } from '../../builder.ts';
import { Batch } from './batch.ts';
import { typedResult } from '../errors.ts';

builder.objectField(Batch, 'payAt', (t) =>
  t.field({
    type: 'DateTime',
    nullable: true,
    description:
      'When a scheduled batch pays (SCHEDULED until then, released by the database clock); kept after it started. Null for a batch approved to pay at once.',
    resolve: (b) => b.payAt,
  }),
);

interface Forecast {
  readAt: Date | null;
  nextReadAt: Date | null;
  shortfall: string | null;
  payAt: Date;
}

const ForecastRef = builder.objectRef<Forecast>('BatchForecast').implement({
  description:
    'A scheduled batch’s money ahead of time: the balance read against it and every batch paying before it (paying now, paused, or scheduled no later), at SCHEDULE_FORECAST_LEAD_HOURS before payAt. A shortfall is a notice, not a failure: at release a short batch pauses for funds and resumes by itself once the balance covers it.',
  fields: (t) => ({
    readAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the balance was last read for it; null until the lead time.',
      resolve: (f) => f.readAt,
    }),
    nextReadAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a worker reads it next; null once read (it is read again at release).',
      resolve: (f) => f.nextReadAt,
    }),
    shortfall: t.field({
      type: Money,
      nullable: true,
      description: 'What was missing when last read (null: covered, or not read yet).',
      resolve: (f) => (f.shortfall === null ? null : moneyObject(f.shortfall, 'RUB')),
    }),
    notice: t.string({
      nullable: true,
      description:
        'In words, for a person, when short: "short by 1,234.00 RUB for the payroll of 28 Nov 2026, 09:00 UTC". Null when covered or not read.',
      resolve: (f) =>
        f.shortfall === null ? null : `short by ${amountInWords(f.shortfall, 'RUB')} for the payroll of ${utcDateTime(f.payAt)}`,
    }),
  }),
});

builder.objectField(Batch, 'forecast', (t) =>
  t.field({
    type: ForecastRef,
    nullable: true,
    description: 'Set for a SCHEDULED batch: whether the balance is expected to cover it at its time.',
    resolve: (b) =>
      b.status !== batchStates.scheduled || b.payAt === null
        ? null
        : { readAt: b.forecastReadAt, nextReadAt: b.forecastAt, shortfall: decimalText(b.forecastShortfall), payAt: b.payAt },
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
    resolve: (_root, { id, payAt }, { services, caller, role, via, requestId, client }) =>
      services.schedule.reschedule(String(id), payAt, requestActor({ role, caller, via, requestId, client })),
  }),
}));

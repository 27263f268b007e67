import { resolveCursorConnection } from '@pothos/plugin-relay';
import { authScopesFor } from '../../auth/roles.ts';
import { DiscrepancyCode, DiscrepancyResolution, ReconciliationStatus } from '../../db/generated/enums.ts';
import type { Prisma, ReconciliationDiscrepancy as DiscrepancyRow, ReconciliationRun as RunRow } from '../../db/generated/client.ts';
import { requestActor } from '../../audit/audit.ts';
import { moneyObject } from '../../money/money-wire.ts';
import { discrepancyCodes, discrepancyDescriptions } from '../../reconciliation/discrepancy-codes.ts';
import { PeriodError } from '../../reconciliation/period.ts';
import { builder } from '../builder.ts';
import { problemCode } from '../error-codes.ts';
import { ErrorCodeEnum, PeriodFieldEnum, ReconciliationPhaseEnum, ReconciliationTriggerEnum } from './enums.ts';
import type { RunTrigger } from '../../reconciliation/reconciliation-service.ts';
import type { RunPhase } from '../../reconciliation/run-lease.ts';
import { Money } from './balance.ts';
import { Problem, typedResult } from './errors.ts';
import { checkPageSizes, pageOptions, pageSizeNote, parseNumberCursor, parseTimeIdCursor, readCursor, timeIdCursor } from './paging.ts';

const DEFAULT_RUNS = 20;
const DEFAULT_DISCREPANCIES = 50;

const runStatusMeanings: Record<ReconciliationStatus, string> = {
  RUNNING: 'Still reading or comparing (see phase).',
  COMPLETED: 'Finished: the counts and discrepancies are final.',
  FAILED: 'Stopped before the end (see error).',
};
const ReconciliationStatusEnum = builder.enumType('ReconciliationStatus', {
  description: 'Whether a reconciliation run is going, done or failed.',
  values: Object.fromEntries(
    Object.values(ReconciliationStatus).map((s) => [s, { value: s, description: runStatusMeanings[s] }]),
  ) as Record<ReconciliationStatus, { value: ReconciliationStatus; description: string }>,
});
const DiscrepancyCodeEnum = builder.enumType('DiscrepancyCode', {
  description: 'What differs; docs/internals/architecture/reconciliation.md has the rule of each.',
  values: Object.fromEntries(discrepancyCodes.map((code) => [code, { value: code, description: discrepancyDescriptions[code] }])) as Record<
    DiscrepancyCode,
    { value: DiscrepancyCode; description: string }
  >,
});
const DiscrepancyResolutionEnum = builder.enumType('DiscrepancyResolution', {
  description: 'OPEN: for a person to decide. REPAIRED: the upstream was final and the gateway was not; the gateway took its status.',
  values: {
    OPEN: { value: DiscrepancyResolution.OPEN, description: 'For a person to decide.' },
    REPAIRED: {
      value: DiscrepancyResolution.REPAIRED,
      description: 'The upstream was final and the gateway was not: the gateway took the upstream’s status.',
    },
  },
});
const FinalSideEnum = builder.enumType('FinalSide', {
  description: 'Which side holds a final status (COMPLETED, FAILED, EXPIRED).',
  values: {
    UPSTREAM: { description: 'Only the upstream’s status is final.' },
    GATEWAY: { description: 'Only the gateway’s status is final.' },
    BOTH: { description: 'Both are final, and they differ.' },
    NEITHER: { description: 'Neither is final yet.' },
  },
});

interface SideTotals {
  count: number;
  amount: RunRow['upstreamAmount'];
  commission: RunRow['upstreamAmount'];
  paidCount: number;
  paidAmount: RunRow['upstreamAmount'];
}

const ReconciliationSide = builder.objectRef<SideTotals>('ReconciliationSide').implement({
  description: 'What one side holds for the period.',
  fields: (t) => ({
    count: t.exposeInt('count', {
      description: 'Payments created in the period, any status (the gateway’s leave out those refused at creation).',
    }),
    amount: t.field({ type: Money, description: 'Sum of those payments’ amounts.', resolve: (s) => moneyObject(s.amount, 'RUB') }),
    commission: t.field({ type: Money, description: 'Sum of their commission.', resolve: (s) => moneyObject(s.commission, 'RUB') }),
    paidCount: t.exposeInt('paidCount', { description: 'COMPLETED payments.' }),
    paidAmount: t.field({ type: Money, description: 'Sum of the COMPLETED payments.', resolve: (s) => moneyObject(s.paidAmount, 'RUB') }),
  }),
});

const DiscrepancyCount = builder.objectRef<{ code: DiscrepancyCode; count: number }>('DiscrepancyCount').implement({
  description: 'How many discrepancies of one kind a run found.',
  fields: (t) => ({
    code: t.field({ type: DiscrepancyCodeEnum, description: 'The kind.', resolve: (c) => c.code }),
    count: t.exposeInt('count', { description: 'How many (at least 1).' }),
  }),
});

export const Discrepancy = builder.node(builder.objectRef<DiscrepancyRow>('Discrepancy'), {
  description: 'One thing a reconciliation found about one payment. Recipients are compared and shown masked.',
  id: { resolve: (d) => d.id.toString() },
  loadOne: (id, { services }) =>
    /^\d{1,19}$/.test(id) ? services.prisma.reconciliationDiscrepancy.findUnique({ where: { id: BigInt(id) } }) : null,
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    discrepancyId: t.id({ description: 'Its own number, the order discrepancies are listed in.', resolve: (d) => d.id.toString() }),
    code: t.field({ type: DiscrepancyCodeEnum, description: 'What differs.', resolve: (d) => d.code }),
    description: t.string({ description: 'The code in words.', resolve: (d) => discrepancyDescriptions[d.code] }),
    paymentId: t.exposeID('paymentId', { description: 'The payment concerned (its own id).' }),
    batchId: t.id({ nullable: true, description: 'The batch whose row made the payment.', resolve: (d) => d.batchId }),
    batchRow: t.int({ nullable: true, description: 'That row’s file line.', resolve: (d) => d.batchRow }),
    gatewayValue: t.string({
      nullable: true,
      description: 'What the gateway recorded of what differs; null where it has no record.',
      resolve: (d) => d.gatewayValue,
    }),
    upstreamValue: t.string({
      nullable: true,
      description: 'What the upstream holds; null where it has no payment.',
      resolve: (d) => d.upstreamValue,
    }),
    gatewayStatus: t.string({
      nullable: true,
      description:
        'The status the gateway recorded (a TrackingStatus name, or CANCELLED for a row of a cancelled batch); null where it has no record.',
      resolve: (d) => d.gatewayStatus,
    }),
    upstreamStatus: t.string({
      nullable: true,
      description:
        'The upstream’s status as it sent it (a PaymentStatus name, or one newer than this gateway knows); null where it has no payment.',
      resolve: (d) => d.upstreamStatus,
    }),
    finalSide: t.field({ type: FinalSideEnum, nullable: true, description: 'For STATUS_DIFFERS.', resolve: (d) => d.finalSide as never }),
    amount: t.field({
      type: Money,
      nullable: true,
      description: 'The payment’s amount; null when not known.',
      resolve: (d) => (d.amount === null ? null : moneyObject(d.amount, (d.currency ?? 'RUB') as 'RUB')),
    }),
    paymentCreatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the payment was created; null when neither side knows.',
      resolve: (d) => d.paymentCreatedAt,
    }),
    resolution: t.field({
      type: DiscrepancyResolutionEnum,
      description: 'Left for a person, or repaired by the run.',
      resolve: (d) => d.resolution,
    }),
  }),
});

export const ReconciliationRun = builder.node(builder.objectRef<RunRow>('ReconciliationRun'), {
  description:
    'One comparison of the gateway’s payments with the upstream’s list for a period of days. Its `id` is both its own id and its global id.',
  id: { resolve: (r) => r.id },
  loadOne: (id, { services }) => services.prisma.reconciliationRun.findUnique({ where: { id } }),
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    from: t.field({ type: 'Date', description: 'First day of the period, in timeZone.', resolve: (r) => r.periodFrom }),
    to: t.field({ type: 'Date', description: 'Last day, included.', resolve: (r) => r.periodTo }),
    timeZone: t.exposeString('timeZone', {
      description: 'The IANA time zone the days are read in (RECONCILE_TIME_ZONE), e.g. Europe/Moscow.',
    }),
    status: t.field({ type: ReconciliationStatusEnum, description: 'Going, done or failed.', resolve: (r) => r.status }),
    trigger: t.field({ type: ReconciliationTriggerEnum, description: 'Who started the run.', resolve: (r) => r.trigger as RunTrigger }),
    requestedBy: t.string({
      nullable: true,
      description: 'Who started it (the actor the audit trail records); null when not recorded.',
      resolve: (r) => r.requestedBy,
    }),
    phase: t.field({
      type: ReconciliationPhaseEnum,
      description: 'Where the run is; DONE once it has finished (see status).',
      resolve: (r) => r.phase as RunPhase,
    }),
    daysRead: t.int({
      description: 'Days of the upstream list read so far (the period and a day either side).',
      resolve: (r) => r.windowsRead,
    }),
    daysToRead: t.int({
      description: 'Days of the upstream list to read in all (the period and a day either side).',
      resolve: (r) => r.windowsTotal,
    }),
    daysReadAgain: t.int({ description: 'Days read again because they changed while read.', resolve: (r) => r.windowsReread }),
    upstreamRequests: t.exposeInt('upstreamRequests', { description: 'Calls made to the Payout API so far (all reads).' }),
    stuckAfterMinutes: t.exposeInt('stuckAfterMinutes', {
      description: 'RECONCILE_STUCK_AFTER_MINUTES when the run started: a payment still not final past this age is reported NOT_FINAL.',
    }),
    upstream: t.field({
      type: ReconciliationSide,
      description: 'What the upstream’s list holds for the period.',
      resolve: (r) => ({
        count: r.upstreamCount,
        amount: r.upstreamAmount,
        commission: r.upstreamCommission,
        paidCount: r.upstreamPaidCount,
        paidAmount: r.upstreamPaidAmount,
      }),
    }),
    gateway: t.field({
      type: ReconciliationSide,
      description: 'What the gateway recorded for the period.',
      resolve: (r) => ({
        count: r.gatewayCount,
        amount: r.gatewayAmount,
        commission: r.gatewayCommission,
        paidCount: r.gatewayPaidCount,
        paidAmount: r.gatewayPaidAmount,
      }),
    }),
    matchedCount: t.exposeInt('matchedCount', { description: 'Payments on both sides that agree in everything compared.' }),
    discrepancyCount: t.exposeInt('discrepancyCount', { description: 'Discrepancies found, open and repaired.' }),
    openCount: t.exposeInt('openCount', { description: 'Discrepancies for a person to decide.' }),
    repairedCount: t.exposeInt('repairedCount', { description: 'Discrepancies the run repaired (REPAIRED).' }),
    countsByCode: t.field({
      type: [DiscrepancyCount],
      description: 'Discrepancies per code, in the codes’ order; codes with none are left out.',
      resolve: (r) => {
        const counts = (r.countsByCode ?? {}) as Record<string, number>;
        return discrepancyCodes.filter((code) => (counts[code] ?? 0) > 0).map((code) => ({ code, count: counts[code]! }));
      },
    }),
    error: t.string({ nullable: true, description: 'Why a FAILED run failed.', resolve: (r) => r.error }),
    startedAt: t.field({ type: 'DateTime', description: 'When the run started.', resolve: (r) => r.startedAt }),
    finishedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it ended (COMPLETED or FAILED); null while RUNNING.',
      resolve: (r) => r.finishedAt,
    }),
    discrepanciesUrl: t.string({
      description: 'Every discrepancy as CSV (same API key); add ?format=excel or ?format=xlsx.',
      resolve: (r) => `/reconciliations/${r.id}/discrepancies.csv`,
    }),
    discrepancies: t.connection({
      type: Discrepancy,
      description: `By code, then paymentId. ${pageSizeNote(DEFAULT_DISCREPANCIES)}`,
      args: {
        code: t.arg({ type: DiscrepancyCodeEnum, description: 'Only discrepancies of this kind.' }),
        resolution: t.arg({ type: DiscrepancyResolutionEnum, description: 'Only OPEN or only REPAIRED ones.' }),
      },
      resolve: (r, args, { services }) => {
        const where: Prisma.ReconciliationDiscrepancyWhereInput = {
          runId: r.id,
          ...(args.code == null ? {} : { code: args.code }),
          ...(args.resolution == null ? {} : { resolution: args.resolution }),
        };
        checkPageSizes(args);
        return resolveCursorConnection<Promise<DiscrepancyRow[]>>(
          { args, ...pageOptions(DEFAULT_DISCREPANCIES), toCursor: (d) => d.id.toString() },
          ({ before, after, limit, inverted }): Promise<DiscrepancyRow[]> => {
            const past = readCursor('discrepancies', 'after', after, parseNumberCursor);
            const until = readCursor('discrepancies', 'before', before, parseNumberCursor);
            return services.prisma.reconciliationDiscrepancy.findMany({
              where: {
                ...where,
                ...(past === undefined && until === undefined
                  ? {}
                  : { id: { ...(past === undefined ? {} : { gt: past }), ...(until === undefined ? {} : { lt: until }) } }),
              },
              orderBy: { id: inverted ? 'desc' : 'asc' },
              take: limit,
            });
          },
        );
      },
    }),
  }),
});

builder.objectType(PeriodError, {
  name: 'ReconciliationPeriodError',
  description:
    'The period cannot be reconciled: not a date, in the future, or older than the upstream keeps payments (50 days). No run was started.',
  interfaces: [Problem],
  fields: (t) => ({
    code: t.field({ type: ErrorCodeEnum, description: 'Always BAD_USER_INPUT.', resolve: problemCode }),
    field: t.field({ type: PeriodFieldEnum, description: 'Which part of the period is refused.', resolve: (e) => e.field }),
  }),
});

builder.queryFields((t) => ({
  reconciliationRun: t.field({
    type: ReconciliationRun,
    nullable: true,
    description: 'One reconciliation run by its id; null when there is none. Any key.',
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true, description: 'The run’s id (r…).' }) },
    resolve: (_root, { id }, { services }) => services.prisma.reconciliationRun.findUnique({ where: { id: String(id) } }),
  }),
  reconciliationRuns: t.connection({
    type: ReconciliationRun,
    description: `Reconciliation runs, newest first. ${pageSizeNote(DEFAULT_RUNS)}`,
    authScopes: { read: true },
    args: { status: t.arg({ type: ReconciliationStatusEnum, description: 'Only runs in this status.' }) },
    resolve: (_root, args, { services }) => {
      checkPageSizes(args);
      return resolveCursorConnection<Promise<RunRow[]>>(
        { args, ...pageOptions(DEFAULT_RUNS), toCursor: (run) => timeIdCursor(run.startedAt, run.id) },
        ({ before, after, limit, inverted }): Promise<RunRow[]> => {
          const older = readCursor('reconciliationRuns', 'after', after, parseTimeIdCursor);
          const newer = readCursor('reconciliationRuns', 'before', before, parseTimeIdCursor);
          return services.prisma.reconciliationRun.findMany({
            where: {
              ...(args.status == null ? {} : { status: args.status }),
              AND: [
                ...(older === undefined ? [] : [{ OR: [{ startedAt: { lt: older.at } }, { startedAt: older.at, id: { lt: older.id } }] }]),
                ...(newer === undefined ? [] : [{ OR: [{ startedAt: { gt: newer.at } }, { startedAt: newer.at, id: { gt: newer.id } }] }]),
              ],
            },
            orderBy: [{ startedAt: inverted ? 'asc' : 'desc' }, { id: inverted ? 'asc' : 'desc' }],
            take: limit,
          });
        },
      );
    },
  }),
}));

builder.mutationFields((t) => ({
  startReconciliation: t.field({
    type: ReconciliationRun,
    description:
      'Compares the gateway’s payments with the upstream’s list for the days from–to (in RECONCILE_TIME_ZONE; both default to yesterday). ' +
      'Returns the run RUNNING at once; follow it with reconciliationRun(id). Reads only: it never creates or executes a payment.',
    authScopes: authScopesFor('startReconciliation'),
    errors: typedResult(
      'StartReconciliation',
      [PeriodError],
      'run',
      'The run, RUNNING: follow it with reconciliationRun(id) or the reconciliationRuns list.',
    ),
    args: {
      from: t.arg({ type: 'Date', description: 'First day, in RECONCILE_TIME_ZONE; yesterday when absent.' }),
      to: t.arg({ type: 'Date', description: 'Last day, included; yesterday when absent.' }),
    },
    resolve: (_root, args, { services, caller, role, via, requestId, client }) =>
      services.reconciliations.start({
        ...(args.from == null ? {} : { from: args.from }),
        ...(args.to == null ? {} : { to: args.to }),
        // The CLI says it is the CLI (x-payout-client, audit.ts requestClientOf): a label between two
        // ways through this same mutation, under the same key and role, so believing it grants nothing;
        // no header can make a run read as the daily schedule's.
        trigger: client?.via === 'cli' ? 'cli' : 'graphql',
        actor: requestActor({ role, caller, via, requestId, client }),
      }),
  }),
}));

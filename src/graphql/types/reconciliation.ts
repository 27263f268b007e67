import { resolveCursorConnection } from '@pothos/plugin-relay';
import { authScopesFor } from '../../config/roles.ts';
import { DiscrepancyCode, DiscrepancyResolution, ReconciliationStatus } from '../../db/generated/enums.ts';
import type { Prisma, ReconciliationDiscrepancy as DiscrepancyRow, ReconciliationRun as RunRow } from '../../db/generated/client.ts';
import { requestActor } from '../../ops/audit.ts';
import { discrepancyCodes, discrepancyDescriptions } from '../../reconciliation/discrepancy-codes.ts';
import { PeriodError } from '../../reconciliation/period.ts';
import { builder } from '../builder.ts';
import { Money } from './balance.ts';
import { typedResult } from './errors.ts';
import { checkPageSizes, pageOptions, pageSizeNote, parseNumberCursor, parseTimeIdCursor, readCursor, timeIdCursor } from './paging.ts';

const DEFAULT_RUNS = 20;
const DEFAULT_DISCREPANCIES = 50;

const ReconciliationStatusEnum = builder.enumType('ReconciliationStatus', { values: Object.values(ReconciliationStatus) });
const DiscrepancyCodeEnum = builder.enumType('DiscrepancyCode', {
  description: 'What differs; docs/architecture.md "Reconciliation" has the rule of each.',
  values: Object.fromEntries(discrepancyCodes.map((code) => [code, { value: code, description: discrepancyDescriptions[code] }])) as Record<
    DiscrepancyCode,
    { value: DiscrepancyCode; description: string }
  >,
});
const DiscrepancyResolutionEnum = builder.enumType('DiscrepancyResolution', {
  description: 'OPEN: for a person to decide. REPAIRED: the upstream was final and the gateway was not; the gateway took its status.',
  values: Object.values(DiscrepancyResolution),
});
const FinalSideEnum = builder.enumType('FinalSide', {
  description: 'Which side holds a final status (COMPLETED, FAILED, EXPIRED).',
  values: ['UPSTREAM', 'GATEWAY', 'BOTH', 'NEITHER'] as const,
});

const rub = (value: { toFixed(digits: number): string }, currency = 'RUB') => ({ value: value.toFixed(2), currency: currency as 'RUB' });

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
    count: t.exposeInt('count', { description: 'Payments created in the period, any status (the gateway’s leave out those refused at creation).' }),
    amount: t.field({ type: Money, resolve: (s) => rub(s.amount) }),
    commission: t.field({ type: Money, resolve: (s) => rub(s.commission) }),
    paidCount: t.exposeInt('paidCount', { description: 'COMPLETED payments.' }),
    paidAmount: t.field({ type: Money, description: 'Sum of the COMPLETED payments.', resolve: (s) => rub(s.paidAmount) }),
  }),
});

const DiscrepancyCount = builder.objectRef<{ code: DiscrepancyCode; count: number }>('DiscrepancyCount').implement({
  fields: (t) => ({
    code: t.field({ type: DiscrepancyCodeEnum, resolve: (c) => c.code }),
    count: t.exposeInt('count'),
  }),
});

export const Discrepancy = builder.node(builder.objectRef<DiscrepancyRow>('Discrepancy'), {
  description: 'One thing a reconciliation found about one payment. Recipients are compared and shown masked.',
  id: { resolve: (d) => d.id.toString() },
  loadOne: (id, { services }) => (/^\d{1,19}$/.test(id) ? services.prisma.reconciliationDiscrepancy.findUnique({ where: { id: BigInt(id) } }) : null),
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    discrepancyId: t.id({ description: 'Its own number, the order discrepancies are listed in.', resolve: (d) => d.id.toString() }),
    code: t.field({ type: DiscrepancyCodeEnum, resolve: (d) => d.code }),
    description: t.string({ resolve: (d) => discrepancyDescriptions[d.code] }),
    paymentId: t.exposeID('paymentId'),
    batchId: t.id({ nullable: true, description: 'The batch whose row made the payment.', resolve: (d) => d.batchId }),
    batchRow: t.int({ nullable: true, description: 'That row’s file line.', resolve: (d) => d.batchRow }),
    gatewayValue: t.string({ nullable: true, description: 'What the gateway recorded of what differs; null where it has no record.', resolve: (d) => d.gatewayValue }),
    upstreamValue: t.string({ nullable: true, description: 'What the upstream holds; null where it has no payment.', resolve: (d) => d.upstreamValue }),
    gatewayStatus: t.string({ nullable: true, resolve: (d) => d.gatewayStatus }),
    upstreamStatus: t.string({ nullable: true, resolve: (d) => d.upstreamStatus }),
    finalSide: t.field({ type: FinalSideEnum, nullable: true, description: 'For STATUS_DIFFERS.', resolve: (d) => d.finalSide as never }),
    amount: t.field({ type: Money, nullable: true, resolve: (d) => (d.amount === null ? null : rub(d.amount, d.currency ?? 'RUB')) }),
    paymentCreatedAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.paymentCreatedAt }),
    resolution: t.field({ type: DiscrepancyResolutionEnum, resolve: (d) => d.resolution }),
  }),
});

export const ReconciliationRun = builder.node(builder.objectRef<RunRow>('ReconciliationRun'), {
  description: 'One comparison of the gateway’s payments with the upstream’s list for a period of days. Its `id` is both its own id and its global id.',
  id: { resolve: (r) => r.id },
  loadOne: (id, { services }) => services.prisma.reconciliationRun.findUnique({ where: { id } }),
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    from: t.field({ type: 'Date', description: 'First day of the period, in timeZone.', resolve: (r) => r.periodFrom }),
    to: t.field({ type: 'Date', description: 'Last day, included.', resolve: (r) => r.periodTo }),
    timeZone: t.exposeString('timeZone'),
    status: t.field({ type: ReconciliationStatusEnum, resolve: (r) => r.status }),
    trigger: t.exposeString('trigger', { description: 'cli, graphql or schedule.' }),
    requestedBy: t.string({ nullable: true, resolve: (r) => r.requestedBy }),
    phase: t.exposeString('phase', { description: 'reading, confirming, comparing, repairing, done.' }),
    daysRead: t.int({ description: 'Days of the upstream list read so far (the period and a day either side).', resolve: (r) => r.windowsRead }),
    daysToRead: t.int({ resolve: (r) => r.windowsTotal }),
    daysReadAgain: t.int({ description: 'Days read again because they changed while read.', resolve: (r) => r.windowsReread }),
    upstreamRequests: t.exposeInt('upstreamRequests'),
    stuckAfterMinutes: t.exposeInt('stuckAfterMinutes'),
    upstream: t.field({
      type: ReconciliationSide,
      resolve: (r) => ({ count: r.upstreamCount, amount: r.upstreamAmount, commission: r.upstreamCommission, paidCount: r.upstreamPaidCount, paidAmount: r.upstreamPaidAmount }),
    }),
    gateway: t.field({
      type: ReconciliationSide,
      resolve: (r) => ({ count: r.gatewayCount, amount: r.gatewayAmount, commission: r.gatewayCommission, paidCount: r.gatewayPaidCount, paidAmount: r.gatewayPaidAmount }),
    }),
    matchedCount: t.exposeInt('matchedCount', { description: 'Payments on both sides that agree in everything compared.' }),
    discrepancyCount: t.exposeInt('discrepancyCount'),
    openCount: t.exposeInt('openCount', { description: 'Discrepancies for a person to decide.' }),
    repairedCount: t.exposeInt('repairedCount'),
    countsByCode: t.field({
      type: [DiscrepancyCount],
      description: 'Discrepancies per code, in the codes’ order; codes with none are left out.',
      resolve: (r) => {
        const counts = (r.countsByCode ?? {}) as Record<string, number>;
        return discrepancyCodes.filter((code) => (counts[code] ?? 0) > 0).map((code) => ({ code, count: counts[code]! }));
      },
    }),
    error: t.string({ nullable: true, description: 'Why a FAILED run failed.', resolve: (r) => r.error }),
    startedAt: t.field({ type: 'DateTime', resolve: (r) => r.startedAt }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.finishedAt }),
    discrepanciesUrl: t.string({
      description: 'Every discrepancy as CSV (same API key); add ?format=excel or ?format=xlsx.',
      resolve: (r) => `/reconciliations/${r.id}/discrepancies.csv`,
    }),
    discrepancies: t.connection({
      type: Discrepancy,
      description: `By code, then paymentId. ${pageSizeNote(DEFAULT_DISCREPANCIES)}`,
      args: { code: t.arg({ type: DiscrepancyCodeEnum }), resolution: t.arg({ type: DiscrepancyResolutionEnum }) },
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
  description: 'The period cannot be reconciled: not a date, in the future, or older than the upstream keeps payments (50 days).',
  fields: (t) => ({
    message: t.exposeString('message'),
    field: t.exposeString('field', { description: 'from, to or timeZone.' }),
  }),
});

builder.queryFields((t) => ({
  reconciliationRun: t.field({
    type: ReconciliationRun,
    nullable: true,
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, { services }) => services.prisma.reconciliationRun.findUnique({ where: { id: String(id) } }),
  }),
  reconciliationRuns: t.connection({
    type: ReconciliationRun,
    description: `Reconciliation runs, newest first. ${pageSizeNote(DEFAULT_RUNS)}`,
    authScopes: { read: true },
    args: { status: t.arg({ type: ReconciliationStatusEnum }) },
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
    errors: typedResult('StartReconciliation', [PeriodError], 'run'),
    args: { from: t.arg({ type: 'Date' }), to: t.arg({ type: 'Date' }) },
    resolve: (_root, args, { services, caller, role, requestId }) =>
      services.reconciliations.start({
        ...(args.from == null ? {} : { from: args.from }),
        ...(args.to == null ? {} : { to: args.to }),
        trigger: 'graphql',
        actor: requestActor({ role, caller }, requestId),
      }),
  }),
}));

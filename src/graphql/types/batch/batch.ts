import { resolveCursorConnection } from '@pothos/plugin-relay';
import { type BatchOverlap, BatchStateError, countOverlaps } from '../../../batch/index.ts';
import { sqlOf } from '../../../db/database.ts';
import { BatchStatus } from '../../../db/generated/enums.ts';
import type { Batch as BatchRow, BatchProblem as BatchProblemRow } from '../../../db/generated/client.ts';
import { moneyObject } from '../../../money/money-wire.ts';
import { builder } from '../../builder.ts';
import { problemCode } from '../../error-codes.ts';
import { Money } from '../balance.ts';
import { ErrorCodeEnum } from '../enums.ts';
import { Problem } from '../errors.ts';
import { MAX_PROBLEMS, checkPageSizes, pageOptions, pageSizeNote, parseTimeIdCursor, readCursor, timeIdCursor } from '../paging.ts';

/*
 * The Batch type (its own columns, its validation problems, the batches it repeats) and the
 * queries that read batches. Its other fields sit beside what they are about, each file of
 * this folder adding its own (builder.objectFields): progress.ts, money.ts, payees.ts,
 * rows.ts, pause.ts, schedule.ts, approvals.ts, review.ts; its mutations in mutations.ts.
 */

const batchStatusMeanings: Record<BatchStatus, string> = {
  VALIDATING: 'The file is being read and checked.',
  REJECTED: 'The file has errors: fix it, or approve with validRowsOnly to pay only its valid rows.',
  VALIDATED: 'Checked, waiting for approval (approveBatch).',
  RUNNING: 'Approved: rows are being paid.',
  PAUSED: 'Approved, sending nothing until resumed: paused by a person, or for lack of funds (see waiting).',
  SCHEDULED:
    'Approved to pay at payAt: nothing is sent until then; it starts by itself (rescheduleBatch moves it, cancelBatch cancels it).',
  COMPLETED: 'Final: every paid row COMPLETED.',
  COMPLETED_WITH_FAILURES: 'Finished with some rows FAILED or EXPIRED (retryFailedItems pays them again) or NEEDS_REVIEW.',
  CANCELLED: 'Cancelled: rows not yet sent are not paid; rows already sent finish and are tracked.',
};

const BatchStatusEnum = builder.enumType('BatchStatus', {
  description:
    'Where a batch is in its life: VALIDATING → VALIDATED or REJECTED → RUNNING (⇄ PAUSED) → COMPLETED, COMPLETED_WITH_FAILURES or CANCELLED.',
  values: Object.fromEntries(Object.values(BatchStatus).map((s) => [s, { value: s, description: batchStatusMeanings[s] }])) as Record<
    BatchStatus,
    { value: BatchStatus; description: string }
  >,
});
const ProblemSeverityEnum = builder.enumType('ProblemSeverity', {
  description: 'How bad a validation problem is.',
  values: {
    ERROR: { value: 'error', description: 'The row (or the file) cannot be paid as it is.' },
    WARNING: { value: 'warning', description: 'Worth a look; the row is paid.' },
  },
});

builder.objectType(BatchStateError, {
  name: 'BatchError',
  description: 'The batch is in the wrong state for this, or the wrong person asked. Nothing was changed.',
  interfaces: [Problem],
  fields: (t) => ({
    code: t.field({
      type: ErrorCodeEnum,
      description: 'A BATCH_…, REVIEW_… or SECOND_PERSON_REQUIRED code, e.g. BATCH_SAME_PERSON, BATCH_NOT_APPROVABLE.',
      resolve: problemCode,
    }),
  }),
});

const BatchProblem = builder.objectRef<BatchProblemRow>('BatchProblem').implement({
  description: 'One validation problem of an uploaded file.',
  fields: (t) => ({
    line: t.int({ nullable: true, description: 'File line (the header is 1); null for the whole file.', resolve: (p) => p.line }),
    column: t.string({
      nullable: true,
      description: 'The column’s header; null for a problem of the whole row or file.',
      resolve: (p) => p.column,
    }),
    code: t.exposeString('code', { description: 'Stable code, e.g. amount.format, field.pattern, reference.duplicate.' }),
    severity: t.field({
      type: ProblemSeverityEnum,
      description: 'ERROR keeps the row (or file) from being paid; WARNING does not.',
      resolve: (p) => p.severity as never,
    }),
    message: t.exposeString('message', { description: 'What is wrong, for a person.' }),
  }),
});

const Overlap = builder.objectRef<BatchOverlap>('BatchOverlap').implement({
  description: 'An earlier batch whose rows this one repeats.',
  fields: (t) => ({
    batchId: t.exposeID('batchId', { description: 'The earlier batch.' }),
    rows: t.exposeInt('rows', { description: 'Rows of this batch that repeat one of that batch.' }),
    amount: t.field({ type: 'Decimal', description: 'What those rows add up to, in the batch’s currency.', resolve: (o) => o.amount }),
  }),
});

/** Held rows' sum, under Batch.heldAmount and its former name. */
const heldAmount = (b: BatchRow) => moneyObject(b.heldAmount, b.currency as 'RUB');

export const Batch = builder.node(builder.objectRef<BatchRow>('Batch'), {
  description: 'One uploaded payroll file and its run. Its `id` is both its own id (the CLI’s, the URLs’) and its global id.',
  id: { resolve: (b) => b.id },
  loadOne: (id, { services }) => services.prisma.batch.findUnique({ where: { id } }),
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The name given at upload, or the file’s name.' }),
    fileName: t.string({
      nullable: true,
      description: 'The uploaded file’s name; null when the upload had none.',
      resolve: (b) => b.fileName,
    }),
    status: t.field({ type: BatchStatusEnum, description: 'Where the batch is in its life.', resolve: (b) => b.status }),
    rowCount: t.exposeInt('rowCount', { description: 'Data rows in the file (the header not counted).' }),
    validCount: t.exposeInt('validCount', { description: 'Rows that passed validation.' }),
    invalidCount: t.exposeInt('invalidCount', { description: 'Rows that failed validation (INVALID; never paid).' }),
    warningCount: t.exposeInt('warningCount', { description: 'Rows with a WARNING problem (paid all the same).' }),
    totalAmount: t.field({
      type: Money,
      description: 'Sum of the valid rows, held rows included: what is to be paid is payableAmount.',
      resolve: (b) => moneyObject(b.totalAmount, b.currency as 'RUB'),
    }),
    validRowsOnly: t.exposeBoolean('validRowsOnly', { description: 'Approved to pay only the valid rows of a file with row errors.' }),
    forced: t.exposeBoolean('forced', { description: 'Imported with force although the same file was imported before.' }),
    heldCount: t.exposeInt('heldCount', {
      description:
        'Held rows: valid rows held back because they repeat a payment (status DUPLICATE) of an approved batch, or an earlier row of this file. Never paid unless the approver includes them (includeHeld).',
    }),
    heldAmount: t.field({ type: Money, description: 'What the held rows add up to.', resolve: (b) => heldAmount(b) }),
    includeHeld: t.exposeBoolean('includeHeld', { description: 'The approver chose to pay the held rows too.' }),
    // The names these had before they were called held: deprecated, the same values, so no client breaks.
    flaggedCount: t.int({
      deprecationReason: 'Use heldCount',
      description: 'The former name of heldCount: the same value.',
      resolve: (b) => b.heldCount,
    }),
    flaggedAmount: t.field({
      type: Money,
      deprecationReason: 'Use heldAmount',
      description: 'The former name of heldAmount: the same value.',
      resolve: (b) => heldAmount(b),
    }),
    includeFlagged: t.boolean({
      deprecationReason: 'Use includeHeld',
      description: 'The former name of includeHeld: the same value.',
      resolve: (b) => b.includeHeld,
    }),
    overlaps: t.field({
      type: [Overlap],
      description: 'The other batches whose rows this one repeats, with how many rows and how much.',
      resolve: async (b, _args, { services }) => {
        if (b.heldCount === 0) return [];
        return countOverlaps(sqlOf(services.prisma), b.id);
      },
    }),
    uploadedBy: t.string({
      nullable: true,
      description: 'Who uploaded it (as Caller.identity names a key); null when not recorded.',
      resolve: (b) => b.uploadedBy,
    }),
    approvedBy: t.string({
      nullable: true,
      description: 'Who approved it, as uploadedBy; null until approved.',
      resolve: (b) => b.approvedBy,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was uploaded.', resolve: (b) => b.createdAt }),
    approvedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was approved; null until then.',
      resolve: (b) => b.approvedAt,
    }),
    startedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When its first row was sent; null until then.',
      resolve: (b) => b.startedAt,
    }),
    finishedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When its last row became final; null until then.',
      resolve: (b) => b.finishedAt,
    }),
    cancelledAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was cancelled; null unless it was.',
      resolve: (b) => b.cancelledAt,
    }),
    dismissedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a person took it off the list (dismissBatch); null unless dismissed.',
      resolve: (b) => b.dismissedAt,
    }),
    dismissedBy: t.string({
      nullable: true,
      description: 'Who dismissed it, as uploadedBy; null unless dismissed.',
      resolve: (b) => b.dismissedBy,
    }),
    problems: t.field({
      type: [BatchProblem],
      description: 'Validation problems in file order (the whole report: /batches/{id}/problems.csv).',
      args: {
        limit: t.arg.int({
          defaultValue: 100,
          description: `Problems to return, 1 to ${MAX_PROBLEMS}.`,
          validate: { min: 1, max: MAX_PROBLEMS },
        }),
        offset: t.arg.int({ defaultValue: 0, description: 'Problems to skip first.', validate: { min: 0 } }),
        severity: t.arg({ type: ProblemSeverityEnum, description: 'Only problems of this severity.' }),
      },
      resolve: (b, args, { services }) =>
        services.prisma.batchProblem.findMany({
          where: { batchId: b.id, ...(args.severity == null ? {} : { severity: args.severity }) },
          orderBy: [{ line: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }],
          take: args.limit ?? 100,
          skip: args.offset ?? 0,
        }),
    }),
    resultsUrl: t.string({
      description: 'CSV of every row and its outcome (same API key).',
      resolve: (b) => `/batches/${b.id}/results.csv`,
    }),
  }),
});

builder.queryFields((t) => ({
  batch: t.field({
    type: Batch,
    nullable: true,
    description: 'One batch by its id; null when there is none. Any key.',
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true, description: 'The batch’s id (b…), as the CLI and the URLs show it.' }) },
    resolve: (_root, { id }, { services }) => services.prisma.batch.findUnique({ where: { id: String(id) } }),
  }),
  batches: t.connection({
    type: Batch,
    description: `Batches, newest first. ${pageSizeNote(20)}`,
    authScopes: { read: true },
    args: {
      status: t.arg({ type: BatchStatusEnum, description: 'Only batches in this status.' }),
      includeDismissed: t.arg.boolean({
        defaultValue: false,
        description: 'Also the batches a person dismissed (dismissBatch), hidden by default.',
      }),
    },
    // Newest first by (createdAt, id): a page stays right while batches are uploaded, and
    // "last" reads the oldest end in the same index order.
    resolve: (_root, args, { services }) => {
      checkPageSizes(args);
      return resolveCursorConnection<Promise<BatchRow[]>>(
        { args, ...pageOptions(20), toCursor: (batch) => timeIdCursor(batch.createdAt, batch.id) },
        ({ before, after, limit, inverted }): Promise<BatchRow[]> => {
          const older = readCursor('batches', 'after', after, parseTimeIdCursor);
          const newer = readCursor('batches', 'before', before, parseTimeIdCursor);
          return services.prisma.batch.findMany({
            where: {
              ...(args.status == null ? {} : { status: args.status }),
              ...(args.includeDismissed === true ? {} : { dismissedAt: null }),
              AND: [
                ...(older === undefined ? [] : [{ OR: [{ createdAt: { lt: older.at } }, { createdAt: older.at, id: { lt: older.id } }] }]),
                ...(newer === undefined ? [] : [{ OR: [{ createdAt: { gt: newer.at } }, { createdAt: newer.at, id: { gt: newer.id } }] }]),
              ],
            },
            orderBy: [{ createdAt: inverted ? 'asc' : 'desc' }, { id: inverted ? 'asc' : 'desc' }],
            take: limit,
          });
        },
      );
    },
  }),
}));

import { resolveCursorConnection } from '@pothos/plugin-relay';
import { GraphQLError } from 'graphql';
import { authScopesFor } from '../../auth/roles.ts';
import { type BatchOverlap, type BatchProgress, BatchStateError, batchStates, countOverlaps, restingStates } from '../../batch/index.ts';
import { sqlOf } from '../../db/database.ts';
import { followState } from '../../events/subscription.ts';
import { BatchStatus } from '../../db/generated/enums.ts';
import type { Batch as BatchRow, BatchProblem as BatchProblemRow } from '../../db/generated/client.ts';
import { recordAudit, requestActor } from '../../audit/audit.ts';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';
import { Money } from './balance.ts';
import { BatchItemStatusEnum } from './batch-item.ts';
import { waitingOf } from './batch-wait-of.ts';
import { ErrorCodeEnum, enumName } from './enums.ts';
import { Problem, typedResult } from './errors.ts';
import { MAX_PROBLEMS, checkPageSizes, pageOptions, pageSizeNote, parseTimeIdCursor, readCursor, timeIdCursor } from './paging.ts';

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
      resolve: (e) => enumName(e.code),
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

const StatusCount = builder.objectRef<BatchProgress['counts'][number]>('BatchStatusCount').implement({
  description: 'How many rows of a batch are in one status, and their sum.',
  fields: (t) => ({
    status: t.field({ type: BatchItemStatusEnum, description: 'The status counted.', resolve: (c) => c.status }),
    count: t.exposeInt('count', { description: 'Rows in it.' }),
    amount: t.field({ type: 'Decimal', description: 'Their amounts added up, in the batch’s currency.', resolve: (c) => c.amount }),
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

/**
 * Progress is computed once per loaded batch row, however many of its fields are asked
 * for; each subscription event loads the row afresh, so it never sees stale counts.
 */
const progressCache = new WeakMap<BatchRow, Promise<BatchProgress>>();
export function progressOf(batch: BatchRow, context: GraphQLContext): Promise<BatchProgress> {
  let progress = progressCache.get(batch);
  if (progress === undefined) {
    progress = context.services.batches.progress(batch);
    progressCache.set(batch, progress);
  }
  return progress;
}

/** Held rows' sum, under Batch.heldAmount and its former name. */
const heldAmount = (b: BatchRow) => ({ value: b.heldAmount.toFixed(2), currency: b.currency as 'RUB' });

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
      resolve: (b) => ({ value: b.totalAmount.toFixed(2), currency: b.currency as 'RUB' }),
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
    counts: t.field({
      type: [StatusCount],
      description: 'Rows and their amounts per status.',
      resolve: async (b, _args, context) => (await progressOf(b, context)).counts,
    }),
    throughput: t.float({
      nullable: true,
      description: 'Rows finished per second since the run started.',
      resolve: async (b, _args, context) => (await progressOf(b, context)).throughput,
    }),
    secondsLeft: t.float({
      nullable: true,
      description:
        'Estimated seconds until every row is finished, at the pace of the last minute; null while the batch waits (see waiting).',
      resolve: async (b, _args, context) => ((await waitingOf(b, context)) === null ? (await progressOf(b, context)).secondsLeft : null),
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
    resolve: async (_root, { file, name, force }, { services, caller, role, requestId, client }) => {
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
        await recordAudit(services.prisma, requestActor({ role, caller, requestId, client }), {
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
    resolve: (_root, { id }, { services, caller, role, requestId, client }) =>
      services.batches.cancel(String(id), requestActor({ role, caller, requestId, client })),
  }),
  dismissBatch: t.field({
    type: Batch,
    description:
      'Takes a batch that paid nothing (REJECTED, or discarded: CANCELLED before approval) off the batch list: batches(includeDismissed: true) still shows it, and the audit trail records who (batch.dismiss). Dismissing it again changes nothing.',
    authScopes: authScopesFor('dismissBatch'),
    errors: batchResult('DismissBatch'),
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    resolve: (_root, { id }, { services, caller, role, requestId, client }) =>
      services.batches.dismiss(String(id), requestActor({ role, caller, requestId, client })),
  }),
  retryFailedItems: t.field({
    type: Batch,
    description: 'Pays FAILED and EXPIRED rows again, each with a new paymentId. NEEDS_REVIEW rows are left to a person.',
    authScopes: authScopesFor('retryFailedItems'),
    errors: batchResult('RetryFailedItems'),
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    resolve: (_root, { id }, { services, caller, role, requestId, client }) =>
      services.batches.retryFailed(String(id), requestActor({ role, caller, requestId, client })),
  }),
}));

/** At most this often per subscriber, however fast rows finish. */
const PROGRESS_INTERVAL_MS = 250;

builder.subscriptionFields((t) => ({
  batchProgress: t.field({
    type: Batch,
    description: 'The batch now, then again whenever its rows change (at most 4 times a second); ends once the batch is finished.',
    authScopes: { read: true },
    args: { id: t.arg.id({ required: true, description: 'The batch’s id.' }) },
    // Events from any process (src/events) only prompt a read: what is sent is the batch as
    // read, and the stream ends once a finished batch has been sent. A cancelled batch is
    // finished once its payments in flight have settled (finishedAt).
    subscribe: (_root, { id }, { services }) =>
      followState(services.batchEvents.subscribe(String(id)), {
        read: () => services.prisma.batch.findUnique({ where: { id: String(id) } }),
        isFinal: (batch) =>
          batch === null || restingStates.includes(batch.status) || (batch.status === batchStates.cancelled && batch.finishedAt !== null),
        intervalMs: PROGRESS_INTERVAL_MS,
        until: services.shutdown,
      }),
    resolve: async (batch, { id }, { services }) => batch ?? services.prisma.batch.findUniqueOrThrow({ where: { id: String(id) } }),
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

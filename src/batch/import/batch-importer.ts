import { prismaQuery, type PrismaClient, type SqlQuery } from '../../db/database.ts';
import { unnestWriter, type BulkRow, type BulkTable, type BulkWriter } from '../../db/bulk-insert.ts';
import type { Batch, BatchItemStatus } from '../../db/generated/client.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import type { Logger } from '../../log/logger.ts';
import { fromMinorUnits, toMinorUnits } from '../../money/money.ts';
import type { PayoutClient } from '../../payout/client.ts';
import type { ProviderCatalogue, ProviderDetails } from '../../payments/provider-catalogue.ts';
import { maskRecipientFields } from '../../log/mask.ts';
import type { CardDataVault, StoredRecipient } from '../card-data.ts';
import { newBatchId, paymentIdFor } from '../ids.ts';
import { DEFAULT_DUPLICATE_WINDOW_DAYS } from '../../config/env.ts';
import { quoteCell, redactCardNumbers } from './read/cell-text.ts';
import { CsvFileError, type FileProblem } from './read/csv-reader.ts';
import { openPayrollFile } from './read/payroll-file.ts';
import { batchStates } from '../lifecycle/batch-states.ts';
import { payingItemStatuses } from '../rows/row-states.ts';
import { ALREADY_PAID, SAME_FILE, SIMILAR, SameFileRows, alreadyPaidMessage, repeats, sameFileMessage } from './duplicate-rows.ts';
import { FirstLines } from './read/first-lines.ts';
import { PayeeKeys, payeeText } from './payee-key.ts';
import { OTHERS_APPROVED, findPayingRows, othersApproved, type PayingRow } from './sql/find-paying-rows.ts';
import { DEFAULT_IMPORT_STALE_MS } from '../lifecycle/sql/reject-stale-imports.ts';
import { scrubCardData } from '../rows/sql/scrub-card-data.ts';
import { spoolUpload, type SpooledUpload } from './upload-spool.ts';
import { validateRow, type RowProblem, type ValidRow } from './validate-row.ts';

export interface BatchLimits {
  maxRows: number;
  maxBytes: number;
}

/** How the importer holds back rows that repeat a payment (duplicate-rows.ts). */
export interface DuplicateSettings {
  /** Finished rows of approved batches count this many days; rows still paying always. */
  windowDays: number;
}

export interface ImportRequest {
  source: AsyncIterable<Uint8Array>;
  name?: string;
  fileName?: string;
  /** Import a file that was imported before (and not rejected). */
  force?: boolean;
  uploadedBy?: string;
  /**
   * Compare rows with the rows of approved batches (default true). `payout batch
   * validate` checks a file with no database and says it cannot.
   */
  checkPaid?: boolean;
}

/**
 * Rows are written in chunks of this many (one COPY each), so memory stays flat as files
 * grow; the next chunk is read and validated while the previous one is written.
 */
const CHUNK = 2_000;
/** Chunks written at once (on as many connections): measured best at 2 on 2 cores. */
const WRITERS = 2;

/** An import that cannot go on, with what to tell the person who uploaded the file. */
class ImportFailure extends Error {
  constructor(readonly problem: FileProblem) {
    super(problem.message);
    this.name = 'ImportFailure';
  }
}

const failed = (message: string): FileProblem => ({ line: null, column: null, code: 'import.failed', message });

/** The batch was cancelled, or given up by the sweep, while its file was being read. */
class ImportAbandoned extends Error {
  constructor() {
    super('the batch stopped being VALIDATING while its file was read');
    this.name = 'ImportAbandoned';
  }
}

/** A batch's columns known from the upload; `name` null means the batch id. */
type BatchFields = Pick<Batch, 'fileName' | 'fileHash' | 'fileBytes' | 'uploadedBy' | 'forced'> & { name: string | null };

/**
 * Reads a payroll file into a batch: the upload is spooled to disk and hashed first, so a
 * file imported before is refused before any row is read (the normalised-content key is
 * unique in the database, so two imports of one file at once give one batch); then every
 * row is validated against the live provider details, every problem stored with its line
 * and column, then the whole-file checks (the total against the balance). The batch ends
 * VALIDATED, or REJECTED when any error was found or the import failed for any reason: no
 * import leaves a batch VALIDATING behind.
 */
export class BatchImporter {
  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      catalogue: ProviderCatalogue;
      client: PayoutClient;
      limits: BatchLimits;
      /** Seals the recipient of every payable row; invalid rows keep only the masked form. */
      cardData: CardDataVault;
      logger: Logger;
      /** How rows are written: the database's COPY (Database.bulk); without it, INSERTs through Prisma. */
      bulk?: BulkWriter;
      /** Raw SQL on the same database (Database.query); without it, through Prisma. */
      query?: SqlQuery;
      duplicates?: DuplicateSettings;
      /** The import's heartbeat; the sweep rejects a VALIDATING batch that went this long without one. */
      staleMs?: number;
    },
  ) {
    this.bulk = deps.bulk ?? unnestWriter((sql, params) => deps.prisma.$executeRawUnsafe(sql, ...params));
    this.query = deps.query ?? prismaQuery(deps.prisma);
  }

  private readonly bulk: BulkWriter;
  private readonly query: SqlQuery;
  private keyedPayees: PayeeKeys | undefined;

  /** Made on first use: `payout batch validate` checks a file with no card-data key at hand. */
  private get payees(): PayeeKeys {
    this.keyedPayees ??= new PayeeKeys(this.deps.cardData.keyring);
    return this.keyedPayees;
  }

  /** Who a chunk's rows may repeat: rows of approved batches other than `batchId`. */
  private payingRows(batchId: string | undefined): (keys: string[]) => Promise<PayingRow[]> {
    const windowDays = this.deps.duplicates?.windowDays ?? DEFAULT_DUPLICATE_WINDOW_DAYS;
    return (keys) => findPayingRows(this.query, keys, { exceptBatchId: batchId ?? '', windowDays });
  }

  async import(request: ImportRequest): Promise<Batch> {
    const fields = (file: { sha256: string; bytes: number }): BatchFields => ({
      // Names are shown to every viewer and exported: a card number typed into one is kept masked.
      name: nullableRedacted(request.name ?? request.fileName),
      fileName: nullableRedacted(request.fileName),
      fileHash: file.sha256,
      fileBytes: file.bytes,
      uploadedBy: request.uploadedBy ?? null,
      forced: request.force ?? false,
    });
    let file: SpooledUpload;
    try {
      file = await spoolUpload(request.source, { maxBytes: this.deps.limits.maxBytes });
    } catch (error) {
      this.deps.logger.error({ err: error }, 'upload could not be spooled');
      return this.createRejected(fields({ sha256: '0'.repeat(64), bytes: 0 }), failed('the file could not be stored for reading; try again later'));
    }
    try {
      if (file.problem !== undefined || file.key === undefined) {
        return await this.createRejected(fields(file), file.problem ?? failed('the file could not be read'));
      }
      const force = request.force ?? false;
      const earlier = force ? null : await this.earlierImport(file.key, file.sha256);
      if (earlier !== null) return await this.createRejected(fields(file), await this.duplicateOf(earlier));
      const claimed = await this.claim(fields(file), force ? null : file.key);
      if (claimed.status === 'REJECTED') return claimed;
      return await this.validateInto(claimed.id, file);
    } finally {
      await file.remove();
    }
  }

  /** The same checks as import, writing nothing: for `payout batch validate`. Never throws for a bad file. */
  async validate(request: ImportRequest): Promise<ValidationReport> {
    const checkPaid = request.checkPaid ?? true;
    const state = new ImportState(undefined, this.bulk, this.deps.cardData, checkPaid ? this.payees : undefined, checkPaid ? this.payingRows(undefined) : undefined);
    let file: SpooledUpload | undefined;
    try {
      file = await spoolUpload(request.source, { maxBytes: this.deps.limits.maxBytes });
      if (file.problem !== undefined || file.key === undefined) {
        state.record({ ...(file.problem ?? failed('the file could not be read')), severity: 'error' });
      } else {
        if (!(request.force ?? false)) {
          const earlier = await this.earlierImport(file.key, file.sha256);
          if (earlier !== null) state.record({ ...(await this.duplicateOf(earlier)), severity: 'error' });
        }
        if (checkPaid) state.othersApproved = await othersApproved(this.query, '');
        const source = file.read();
        try {
          await this.scan(source, state);
        } finally {
          source.destroy();
        }
      }
      await state.flush();
    } catch (error) {
      this.deps.logger.error({ err: error }, 'file validation failed');
      state.record({ ...failureProblem(error), severity: 'error' });
      await state.flush();
    } finally {
      await file?.remove();
    }
    const problems = state.report;
    const errors = problems.filter((p) => p.severity === 'error').length;
    return {
      payable: errors === 0,
      rowCount: state.rows,
      validCount: state.validRows,
      invalidCount: state.rows - state.validRows,
      errorCount: errors,
      warningCount: problems.length - errors,
      emptyRowCount: state.emptyRows,
      flaggedCount: state.flaggedRows,
      flaggedAmount: fromMinorUnits(state.flaggedMinor),
      totalAmount: fromMinorUnits(state.totalMinor),
      problems,
    };
  }

  /**
   * Writes the batch holding the file's key. The unique index decides between two imports
   * of one file at once: the loser is rejected as a duplicate of the winner.
   */
  private async claim(fields: BatchFields, key: string | null): Promise<Batch> {
    for (let attempt = 1; ; attempt++) {
      try {
        const id = newBatchId();
        return await this.deps.prisma.batch.create({ data: { ...fields, id, name: fields.name ?? id, fileKey: key } });
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 3) throw error;
        const holder = key === null ? null : await this.keyHolder(key);
        // No holder: the batch id was taken, or the holder was rejected meanwhile and let go of the key.
        if (holder !== null) return this.createRejected(fields, await this.duplicateOf(holder));
      }
    }
  }

  /**
   * The batch this file was imported as, if any. Only a hint before the claim (which is
   * what settles a race), but it names the batch holding the key first.
   */
  private async earlierImport(key: string, sha256: string) {
    return (await this.keyHolder(key)) ?? (await this.unkeyedEarlier(sha256));
  }

  /**
   * The file was imported before: say what became of that batch, so that nobody is told
   * to force an import of a payroll without knowing how much of it was paid.
   */
  private async duplicateOf(earlier: { id: string; createdAt: Date; status: string }): Promise<FileProblem> {
    const groups = await this.deps.prisma.batchItem.groupBy({ by: ['status'], where: { batchId: earlier.id }, _count: { _all: true }, _sum: { amount: true } });
    const rows = groups.map((g) => ({ status: g.status, count: g._count._all, amount: g._sum.amount?.toFixed(2) ?? '0.00' }));
    return {
      line: null,
      column: null,
      code: 'file.duplicate',
      message:
        `the same file was imported as batch ${earlier.id} on ${earlier.createdAt.toISOString()}; ${earlierOutcome(earlier, rows)}. ` +
        'Imported again with force, every row paid or being paid is held back as a duplicate.',
    };
  }

  private keyHolder(key: string) {
    return this.deps.prisma.batch.findUnique({ where: { fileKey: key }, select: { id: true, createdAt: true, status: true } });
  }

  /**
   * Batches without a key that still count: forced imports, and those imported before keys
   * existed. Only the exact bytes can be matched for them.
   */
  private unkeyedEarlier(sha256: string) {
    return this.deps.prisma.batch.findFirst({
      where: { fileHash: sha256, fileKey: null, status: { notIn: [batchStates.rejected, batchStates.importing] }, NOT: { status: batchStates.cancelled, approvedAt: null } },
      orderBy: { createdAt: 'asc' },
      select: { id: true, createdAt: true, status: true },
    });
  }

  /** A batch refused before any row is read: one problem, no rows, no key. */
  private async createRejected(fields: BatchFields, problem: FileProblem): Promise<Batch> {
    const id = newBatchId();
    const batch = await this.deps.prisma.batch.create({
      data: {
        ...fields,
        id,
        name: fields.name ?? id,
        status: batchStates.rejected,
        validatedAt: new Date(),
        problems: { create: [{ ...problem, severity: 'error', message: redactCardNumbers(problem.message) }] },
      },
    });
    this.deps.logger.info({ batchId: batch.id, code: problem.code }, 'batch rejected before reading rows');
    return batch;
  }

  private async validateInto(id: string, file: SpooledUpload): Promise<Batch> {
    const { prisma } = this.deps;
    const state = new ImportState(id, this.bulk, this.deps.cardData, this.payees, this.payingRows(id));
    const source = file.read();
    const heartbeat = this.heartbeat(id, state);
    try {
      await heartbeat.beat();
      const readable = await this.scan(source, state);
      const errors = await prisma.batchProblem.count({ where: { batchId: id, severity: 'error' } });
      const warnings = await prisma.batchProblem.count({ where: { batchId: id, severity: 'warning' } });
      const rejected = errors > 0;
      heartbeat.stop();
      // Only while still VALIDATING: a batch cancelled (or given up by the sweep) meanwhile stays so.
      const { count } = await prisma.batch.updateMany({
        where: { id, status: batchStates.importing },
        data: {
          status: rejected ? batchStates.rejected : batchStates.validated,
          // A rejected file is fixed and uploaded again: it must not count as imported.
          ...(rejected ? { fileKey: null } : {}),
          rowCount: state.rows,
          // A file that could not be read to its end (csv.syntax) is never paid, not even
          // the rows before the break: what came after them is unknown.
          validCount: readable ? state.validRows : 0,
          invalidCount: readable ? state.rows - state.validRows : state.rows,
          warningCount: warnings,
          totalAmount: fromMinorUnits(state.totalMinor),
          flaggedCount: state.flaggedRows,
          flaggedAmount: fromMinorUnits(state.flaggedMinor),
          validatedAt: new Date(),
        },
      });
      if (count === 0) throw new ImportAbandoned();
      const batch = await prisma.batch.findUniqueOrThrow({ where: { id } });
      // A file with errors of its own can never be approved: its rows need no card data.
      if (rejected) await scrubCardData(this.query, { batchIds: [id], retentionDays: null });
      this.deps.logger.info({ batchId: id, status: batch.status, rows: state.rows, errors, warnings, flagged: state.flaggedRows }, 'batch imported');
      return batch;
    } catch (error) {
      if (error instanceof ImportAbandoned || heartbeat.abandoned) return await this.abandon(id, state);
      return await this.fail(id, state, error);
    } finally {
      heartbeat.stop();
      source.destroy();
    }
  }

  /**
   * Pushes the batch's heartbeat forward on the database clock while its file is read, so
   * the sweep (sql/reject-stale-imports.ts) can tell a dead import from a long one within
   * a minute or two. A beat that finds the batch no longer VALIDATING (cancelled, or given
   * up after a stall) stops the import at its next row. Each beat also says whether another
   * batch was approved (the first one before any row is read): only then are chunks looked
   * up against approved rows. One approved after the last beat is caught at this batch's
   * approval (hold-approved-repeats.ts), as one approved after the import is.
   */
  private heartbeat(id: string, state: ImportState) {
    const staleMs = this.deps.staleMs ?? DEFAULT_IMPORT_STALE_MS;
    let abandoned = false;
    const beat = async () => {
      const rows = await this.query<{ id: string; othersApproved: boolean }>(
        `UPDATE "Batch" SET "importHeartbeatAt" = now() WHERE id = $1 AND status = $2::"BatchStatus" RETURNING id, ${OTHERS_APPROVED} AS "othersApproved"`,
        [id, batchStates.importing],
      );
      if (rows.length === 0) {
        abandoned = true;
        state.abandon();
      } else if (rows[0]!.othersApproved) {
        state.othersApproved = true;
      }
    };
    const timer = setInterval(() => {
      beat().catch((error: unknown) => this.deps.logger.warn({ err: error, batchId: id }, 'import heartbeat not written; trying again'));
    }, Math.max(50, Math.floor(staleMs / 6)));
    timer.unref();
    return {
      beat,
      stop: () => clearInterval(timer),
      get abandoned() {
        return abandoned;
      },
    };
  }

  /** A batch cancelled while its file was read: rows written before or after the cancel are never paid. */
  private async abandon(id: string, state: ImportState): Promise<Batch> {
    await state.idle();
    await this.query(
      `UPDATE "BatchItem" SET status = $2::"BatchItemStatus", "errorCode" = 'batch.cancelled', "errorMessage" = 'the batch was cancelled while its file was read', "finishedAt" = now(), "updatedAt" = now()
       WHERE "batchId" = $1 AND status = ANY($3::text[]::"BatchItemStatus"[])`,
      [id, 'CANCELLED' satisfies BatchItemStatus, ['PENDING', 'DUPLICATE'] satisfies BatchItemStatus[]],
    );
    await scrubCardData(this.query, { batchIds: [id], retentionDays: null });
    this.deps.logger.info({ batchId: id, rows: state.rows }, 'import stopped: the batch was cancelled or given up while its file was read');
    return this.deps.prisma.batch.findUniqueOrThrow({ where: { id } });
  }

  /**
   * Whatever went wrong, the batch ends REJECTED saying so, rather than VALIDATING for ever;
   * one cancelled (or given up by the sweep) meanwhile keeps that state.
   */
  private async fail(id: string, state: ImportState, error: unknown): Promise<Batch> {
    this.deps.logger.error({ err: error, batchId: id }, 'batch import failed');
    // A chunk still being written would land after the card data is dropped below.
    await state.idle();
    try {
      await this.deps.prisma.batchProblem.create({ data: { batchId: id, severity: 'error', ...failureProblem(error) } });
      const { count } = await this.deps.prisma.batch.updateMany({
        where: { id, status: batchStates.importing },
        data: {
          status: batchStates.rejected,
          fileKey: null,
          rowCount: state.rows,
          validCount: 0,
          invalidCount: state.rows,
          validatedAt: new Date(),
        },
      });
      if (count === 0) return await this.abandon(id, state);
      // Nothing of a failed import is paid: no row keeps card data (the worker's sweep does it if this fails).
      await scrubCardData(prismaQuery(this.deps.prisma), { batchIds: [id], retentionDays: null }).catch((scrub: unknown) =>
        this.deps.logger.warn({ err: scrub, batchId: id }, 'card data of a failed import not dropped yet; the sweep will'),
      );
      return await this.deps.prisma.batch.findUniqueOrThrow({ where: { id } });
    } catch (second) {
      // The database itself is gone: nothing more can be recorded here.
      this.deps.logger.error({ err: second, batchId: id }, 'failed import could not be recorded');
      throw error;
    }
  }

  /** Reads and checks every row; false when the file could not be read to its end. */
  private async scan(source: AsyncIterable<Uint8Array>, state: ImportState): Promise<boolean> {
    let providers: Map<string, ProviderDetails>;
    try {
      providers = new Map((await this.deps.catalogue.all()).map((p) => [p.code, p]));
    } catch (error) {
      throw new ImportFailure(
        failed(`the provider details could not be read from the payout service (${redactCardNumbers((error as Error).message ?? String(error)).slice(0, 200)}); import the file again later`),
      );
    }
    let readable = true;
    let empty: (() => number[]) | undefined;
    try {
      const csv = await openPayrollFile(source, { maxBytes: this.deps.limits.maxBytes });
      empty = csv.emptyRows;
      for await (const row of csv.rows) {
        if (state.abandoned) throw new ImportAbandoned();
        if (state.rows >= this.deps.limits.maxRows) {
          state.fileProblem('file.too-many-rows', `the file has more than ${this.deps.limits.maxRows} rows`);
          break;
        }
        const { valid, problems } = validateRow(row, providers);
        // Only a full chunk waits (for the chunk before it to be written).
        const written = state.add(row.line, row.cells.reference, valid, problems);
        if (written !== undefined) await written;
      }
    } catch (error) {
      if (!(error instanceof CsvFileError)) throw error;
      readable = false;
      for (const problem of error.problems) state.record({ ...problem, severity: 'error' });
    }
    if (readable && empty !== undefined) state.skippedEmpty(empty());
    await state.flush();
    if (readable) await this.fileChecks(state);
    await state.flush();
    return readable;
  }

  private async fileChecks(state: ImportState): Promise<void> {
    if (state.validRows === 0 && state.rows > 0) state.fileProblem('file.no-valid-rows', 'no row can be paid');
    if (state.rows === 0) state.fileProblem('file.no-rows', 'the file has a header but no rows');
    try {
      const balance = await this.deps.client.getBalance();
      const payable = state.totalMinor - state.flaggedMinor;
      if (payable > toMinorUnits(balance.available.value.replace(/^-/, '')) || balance.available.value.startsWith('-')) {
        // A warning: the balance may be topped up before approval, which weighs it against
        // every approved batch and their commission and refuses what it cannot cover.
        state.record({
          line: null,
          column: null,
          code: 'balance.insufficient',
          severity: 'warning',
          message: `the valid rows total ${fromMinorUnits(payable)} RUB${state.flaggedRows > 0 ? ' (without the rows held as duplicates)' : ''} but only ${balance.available.value} is available (commission comes on top): top up before approval, which refuses what the balance does not cover`,
        });
      }
    } catch (error) {
      state.record({
        line: null,
        column: null,
        code: 'balance.unknown',
        severity: 'warning',
        message: `the balance could not be read (${(error as Error).message}); check it before approving`,
      });
    }
  }
}

/** The earlier batch's rows by what happened to them: what a person must know before importing the file again. */
function earlierOutcome(earlier: { status: string }, rows: Array<{ status: BatchItemStatus; count: number; amount: string }>): string {
  const count = (statuses: readonly BatchItemStatus[]) => rows.filter((r) => statuses.includes(r.status)).reduce((sum, r) => sum + r.count, 0);
  const sum = (statuses: readonly BatchItemStatus[]) =>
    fromMinorUnits(rows.filter((r) => statuses.includes(r.status)).reduce((total, r) => total + toMinorUnits(r.amount), 0n));
  const payable = rows.filter((r) => r.status !== 'INVALID').reduce((total, r) => total + r.count, 0);
  switch (earlier.status) {
    case 'VALIDATING':
      return 'it is still being validated';
    case 'VALIDATED':
    case 'REJECTED':
      return `it is ${earlier.status} and not approved: approve or discard that batch instead (payout batch approve|cancel)`;
    default: {
      const paid = count(['COMPLETED']);
      const moving = count(payingItemStatuses.filter((s) => s !== 'COMPLETED'));
      const parts = [`${paid} of ${payable} rows paid (${sum(['COMPLETED'])} RUB)`];
      if (moving > 0) parts.push(`${moving} being paid or awaiting review`);
      const unpaid = count(['FAILED', 'EXPIRED', 'CANCELLED']);
      if (unpaid > 0) parts.push(`${unpaid} failed, expired or cancelled`);
      return `it is ${earlier.status}: ${parts.join(', ')}`;
    }
  }
}

const nullableRedacted = (text: string | undefined) => (text === undefined ? null : redactCardNumbers(text));

/** What the uploader is told; the error itself (which may quote data) goes to the log only. */
function failureProblem(error: unknown): FileProblem {
  if (error instanceof ImportFailure) return error.problem;
  return failed('the file could not be imported because of an internal error (logged); nothing from it will be paid, import it again');
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** BatchItem as the import writes it; the cells of each row in this order. */
const itemTable: BulkTable = {
  name: 'BatchItem',
  columns: [
    { name: 'batchId', type: 'text' },
    { name: 'line', type: 'integer' },
    { name: 'reference', type: 'text' },
    { name: 'paymentId', type: 'text' },
    { name: 'providerCode', type: 'text' },
    { name: 'amount', type: 'numeric' },
    { name: 'currency', type: 'text' },
    { name: 'fields', type: 'jsonb' },
    { name: 'customFields', type: 'jsonb' },
    { name: 'status', type: '"BatchItemStatus"' },
    { name: 'errorCode', type: 'text' },
    { name: 'errorMessage', type: 'text' },
    { name: 'updatedAt', type: 'timestamptz' },
    { name: 'payeeKey', type: 'text' },
    { name: 'duplicateOf', type: 'text' },
  ],
};

const STATUS_CELL = 9;
const ERROR_CODE_CELL = 10;
const ERROR_MESSAGE_CELL = 11;
const DUPLICATE_OF_CELL = 14;

/** A row's cells in itemTable's order. */
function itemCells(
  batchId: string,
  row: PendingRow,
  valid: ValidRow,
  fields: string,
  status: BatchItemStatus,
  firstError: RowProblem | undefined,
  updatedAt: string,
): Array<string | null> {
  return [
    batchId,
    String(row.line),
    valid.reference ?? null,
    paymentIdFor(batchId, row.line, 1),
    valid.providerCode,
    valid.amount,
    valid.currency,
    fields,
    json(valid.customFields),
    status,
    firstError?.code ?? null,
    firstError?.message ?? null,
    updatedAt,
    row.payeeKeys?.[0] ?? null,
    null,
  ];
}

const problemTable: BulkTable = {
  name: 'BatchProblem',
  columns: [
    { name: 'batchId', type: 'text' },
    { name: 'line', type: 'integer' },
    { name: 'column', type: 'text' },
    { name: 'code', type: 'text' },
    { name: 'severity', type: 'text' },
    { name: 'message', type: 'text' },
  ],
};

const problemRow = (batchId: string, p: RowProblem): BulkRow => [batchId, p.line === null ? null : String(p.line), p.column, p.code, p.severity, p.message];

export interface ValidationReport {
  payable: boolean;
  rowCount: number;
  validCount: number;
  invalidCount: number;
  errorCount: number;
  warningCount: number;
  /** Rows with no cell filled, skipped (a `row.empty` warning lists them). */
  emptyRowCount: number;
  /** Valid rows that repeat a payment (or an earlier row) and would be held back, and their sum. */
  flaggedCount: number;
  flaggedAmount: string;
  totalAmount: string;
  problems: RowProblem[];
}

/** A row read and checked, waiting for its chunk's look-up of earlier payments. */
interface PendingRow {
  line: number;
  amount: string;
  reference: string | undefined;
  /**
   * The row as it will be written (itemTable's cells), made as the row is read so that the
   * parsed row can be collected at once; holding it changes its status and error cells.
   * None when nothing is written (validation only).
   */
  cells?: Array<string | null>;
  /** Payable rows only: the payee's keyed hashes (the stored one first) and the first line of this file it repeats. */
  payeeKeys?: string[];
  sameFileLine?: number | undefined;
}

/**
 * Counters and buffers of one import; rows and problems go to the database a chunk at a
 * time, the next chunk filled while the previous one is written. Each chunk's payable rows
 * are looked up against the rows of approved batches in one query before they are written
 * (asked as the chunk is cut, and only once another batch was ever approved), and those
 * that repeat a payment are written DUPLICATE (duplicate-rows.ts). Without a
 * batch id (validation only) nothing is written and problems are kept in `report`.
 */
class ImportState {
  rows = 0;
  validRows = 0;
  totalMinor = 0n;
  emptyRows = 0;
  /** Valid rows held as DUPLICATE, and their sum: counted as each chunk is looked up. */
  flaggedRows = 0;
  flaggedMinor = 0n;
  problems: RowProblem[] = [];
  readonly report: RowProblem[] = [];
  private pending: PendingRow[] = [];
  private readonly references = new FirstLines();
  private readonly sameFile = new SameFileRows();
  /** Chunks being written; a failed write fails the import at the next chunk or at the end. */
  private readonly writing = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  private stopped = false;
  private readonly updatedAt = new Date().toISOString();
  /**
   * Whether another batch was ever approved: until then no row can repeat a payment and
   * no chunk is looked up (set by the caller, before the first row and as it learns more).
   */
  othersApproved = false;

  constructor(
    readonly batchId: string | undefined,
    private readonly bulk: BulkWriter,
    private readonly cardData: CardDataVault,
    /** Without it (validation with no database) payees are compared in memory only, by their text. */
    private readonly payees: PayeeKeys | undefined,
    /** Rows of approved batches with any of these payee keys; none when the database is not at hand. */
    private readonly payingRows: ((keys: string[]) => Promise<PayingRow[]>) | undefined,
  ) {}

  /** The batch stopped being VALIDATING: the import stops at its next row. */
  abandon(): void {
    this.stopped = true;
  }

  get abandoned(): boolean {
    return this.stopped;
  }

  /** Rows with no cell filled (trailing `;;;;` rows of spreadsheet exports): skipped, and said once. */
  skippedEmpty(lines: number[]): void {
    this.emptyRows = lines.length;
    if (lines.length === 0) return;
    const shown = lines.slice(0, 10).join(', ') + (lines.length > 10 ? ', …' : '');
    this.record({
      line: null,
      column: null,
      code: 'row.empty',
      severity: 'warning',
      message: `${lines.length} ${lines.length === 1 ? 'row' : 'rows'} with no cell filled skipped (${lines.length === 1 ? 'line' : 'lines'} ${shown})`,
    });
  }

  fileProblem(code: string, message: string): void {
    this.record({ line: null, column: null, code, severity: 'error', message });
  }

  /** Every problem passes here: cells may hold card numbers, problems are shown to many. */
  record(problem: RowProblem): RowProblem {
    const safe = {
      ...problem,
      column: problem.column === null ? null : redactCardNumbers(problem.column),
      message: redactCardNumbers(problem.message),
    };
    this.problems.push(safe);
    return safe;
  }

  /** Returns a promise only when a chunk is full: it resolves once the chunk before it is written. */
  add(line: number, reference: string | undefined, valid: ValidRow | undefined, problems: RowProblem[]): Promise<void> | undefined {
    this.rows++;
    if (reference !== undefined) {
      const first = this.references.firstOrAdd(reference, line);
      if (first !== undefined) {
        problems.push({ line, column: 'reference', code: 'reference.duplicate', severity: 'error', message: `${quoteCell(reference)} is also on line ${first}` });
      }
    }
    let firstError: RowProblem | undefined;
    for (const problem of problems) {
      const safe = this.record(problem);
      if (firstError === undefined && safe.severity === 'error') firstError = safe;
    }
    if (valid !== undefined) {
      const payable = firstError === undefined;
      if (payable) {
        this.validRows++;
        this.totalMinor += toMinorUnits(valid.amount);
      }
      const row: PendingRow = { line, amount: valid.amount, reference: valid.reference };
      if (payable) {
        const payee = payeeText(valid);
        row.payeeKeys = this.payees?.candidates(payee) ?? [payee];
        // The stored key stands for the payee: 32 characters to remember instead of the text.
        const same = this.sameFile.check(row.payeeKeys[0]!, valid.amount, valid.reference, line);
        row.sameFileLine = same.repeats;
        if (same.similar !== undefined) {
          this.record({ line, column: null, code: SIMILAR, severity: 'warning', message: `same payee and amount as line ${same.similar}, under another reference` });
        }
      }
      if (this.batchId !== undefined) {
        const fields = payable ? this.cardData.seal(valid.fields, { batchId: this.batchId, line }) : maskRecipientFields(valid.fields);
        row.cells = itemCells(this.batchId, row, valid, JSON.stringify(fields), payable ? 'PENDING' : 'INVALID', firstError, this.updatedAt);
        this.pending.push(row);
      } else if (payable) {
        this.pending.push(row);
      }
    }
    if (this.pending.length >= CHUNK || this.problems.length >= CHUNK) return this.nextChunk();
    return undefined;
  }

  /** Once no write is under way, whether one failed or not. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.writing]);
  }

  /** Everything buffered written, and every write before it. */
  async flush(): Promise<void> {
    await this.nextChunk();
    await this.idle();
    this.throwFailure();
  }

  /**
   * Hands the buffered rows to the writer, waiting while WRITERS chunks are being written:
   * the next chunk is read and validated meanwhile, and PostgreSQL loads chunks on as many
   * connections. Resolves once these rows are being written.
   */
  private async nextChunk(): Promise<void> {
    const rows = this.pending;
    const problems = this.problems;
    this.pending = [];
    this.problems = [];
    // Asked before waiting for a writer: the answer comes while earlier chunks are written.
    const earlier = this.lookUp(rows);
    if (this.batchId === undefined) {
      this.holdRepeats(rows, problems, await earlier);
      // One at a time: spreading an array this long into push() can overflow the stack.
      for (const problem of problems) this.report.push(problem);
      return;
    }
    if (rows.length === 0 && problems.length === 0) return;
    const batchId = this.batchId;
    // Seen by the write below; not an unhandled rejection while it waits for a writer.
    earlier.catch(() => {});
    while (this.writing.size >= WRITERS) await Promise.race(this.writing);
    this.throwFailure();
    const write = (async () => {
      try {
        this.holdRepeats(rows, problems, await earlier);
        await this.bulk(itemTable, rows.map((row) => row.cells!));
        await this.bulk(problemTable, problems.map((problem) => problemRow(batchId, problem)));
      } catch (error) {
        // Seen by the next chunk or by flush(); not an unhandled rejection meanwhile.
        this.failure ??= { error };
      }
    })();
    this.writing.add(write);
    void write.then(() => this.writing.delete(write));
  }

  /** One query for the chunk's payees: the rows of approved batches paying any of them, by payee key. */
  private async lookUp(rows: PendingRow[]): Promise<Map<string, PayingRow[]>> {
    const earlier = new Map<string, PayingRow[]>();
    if (this.payingRows === undefined || !this.othersApproved) return earlier;
    const keys = new Set<string>();
    for (const row of rows) {
      if (row.payeeKeys !== undefined && row.sameFileLine === undefined) for (const key of row.payeeKeys) keys.add(key);
    }
    for (const paying of keys.size === 0 ? [] : await this.payingRows([...keys])) {
      const key = paying.payeeKey.trimEnd();
      earlier.set(key, [...(earlier.get(key) ?? []), paying]);
    }
    return earlier;
  }

  /** Each payable row that repeats an earlier row of this file or a row of an approved batch becomes DUPLICATE with a warning naming it. */
  private holdRepeats(rows: PendingRow[], problems: RowProblem[], earlier: Map<string, PayingRow[]>): void {
    for (const row of rows) {
      if (row.payeeKeys === undefined) continue;
      if (row.sameFileLine !== undefined) {
        this.hold(row, problems, SAME_FILE, sameFileMessage(row.sameFileLine), this.batchId === undefined ? undefined : paymentIdFor(this.batchId, row.sameFileLine, 1));
        continue;
      }
      if (earlier.size === 0) continue;
      const match = row.payeeKeys.flatMap((key) => earlier.get(key) ?? []).find((paying) => repeats(paying, row));
      if (match !== undefined) this.hold(row, problems, ALREADY_PAID, alreadyPaidMessage(match), match.paymentId);
    }
  }

  private hold(row: PendingRow, problems: RowProblem[], code: string, message: string, duplicateOf: string | undefined): void {
    if (row.cells !== undefined) {
      row.cells[STATUS_CELL] = 'DUPLICATE' satisfies BatchItemStatus;
      row.cells[ERROR_CODE_CELL] = code;
      row.cells[ERROR_MESSAGE_CELL] = message;
      row.cells[DUPLICATE_OF_CELL] = duplicateOf ?? null;
    }
    this.flaggedRows++;
    this.flaggedMinor += toMinorUnits(row.amount);
    problems.push({ line: row.line, column: null, code, severity: 'warning', message });
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }
}

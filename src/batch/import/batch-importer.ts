import { DEFAULT_DUPLICATE_WINDOW_DAYS } from '../../config/env.ts';
import { recordImportEvent } from './sql/record-import-event.ts';
import { scanFile, type BatchLimits } from './scan-file.ts';
import { abandonImport, failImport, type EndDeps } from './unfinished-import.ts';
import { sqlOf, type PrismaClient, type SqlQuery } from '../../db/database.ts';
import { unnestWriter, type BulkWriter } from '../../db/bulk-insert.ts';
import type { Batch } from '../../db/generated/client.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import type { Logger } from '../../log/logger.ts';
import { fromMinorUnits } from '../../money/money.ts';
import type { PayoutClient } from '../../payout/client.ts';
import type { ProviderCatalogue } from '../../payments/provider-catalogue.ts';
import type { CardDataVault } from '../card-data.ts';
import { newBatchId } from '../ids.ts';
import { batchStates } from '../states/batch-states.ts';
import { scrubCardData } from '../rows/sql/scrub-card-data.ts';
import { EarlierImports } from './earlier-import.ts';
import { ImportAbandoned, failed, failureProblem } from './import-failure.ts';
import { importHeartbeat } from './import-heartbeat.ts';
import { ImportState } from './import-state.ts';
import { reportOf, type ValidationReport } from './validation-report.ts';
import { PayeeKeys } from '../../payees/payee-keys.ts';
import { redactCardNumbers } from '../../log/card-numbers.ts';
import type { FileProblem } from './read/csv-reader.ts';
import { findPayingRows, othersApproved, type PayingRow } from './sql/find-paying-rows.ts';
import { findPaidAccounts } from '../../payees/sql/find-paid-accounts.ts';
import { spoolUpload, type SpooledUpload } from './upload-spool.ts';

export type { ValidationReport } from './validation-report.ts';

/** How the importer holds back rows that repeat a payment (held-rows.ts). */
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
    this.bulk = deps.bulk ?? unnestWriter(sqlOf(deps.prisma));
    this.query = deps.query ?? sqlOf(deps.prisma);
    this.earlier = new EarlierImports(deps.prisma);
  }

  private readonly bulk: BulkWriter;
  private readonly query: SqlQuery;
  private readonly earlier: EarlierImports;
  private keyedPayees: PayeeKeys | undefined;

  /** What an import that did not finish needs to leave its batch (unfinished-import.ts). */
  private get ends(): EndDeps {
    return { prisma: this.deps.prisma, query: this.query, logger: this.deps.logger };
  }

  /** Made on first use: `payout batch validate` checks a file with no card-data key at hand. */
  private get payees(): PayeeKeys {
    this.keyedPayees ??= new PayeeKeys(this.deps.cardData.keyring);
    return this.keyedPayees;
  }

  /** The account each payee named in a chunk was last paid to (payees/payee-marks.ts). */
  private readonly paidAccounts = (payeeIds: string[]) => findPaidAccounts(this.query, payeeIds);

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
      return this.createRejected(
        fields({ sha256: '0'.repeat(64), bytes: 0 }),
        failed('the file could not be stored for reading; try again later'),
      );
    }
    try {
      if (file.problem !== undefined || file.key === undefined) {
        return await this.createRejected(fields(file), file.problem ?? failed('the file could not be read'));
      }
      const force = request.force ?? false;
      const earlier = force ? null : await this.earlier.find(file.key, file.sha256);
      if (earlier !== null) return await this.createRejected(fields(file), await this.earlier.duplicateOf(earlier));
      const claimed = await this.claim(fields(file), force ? null : file.key);
      if (claimed.status === batchStates.rejected) return claimed;
      return await this.validateInto(claimed.id, file);
    } finally {
      await file.remove();
    }
  }

  /** The same checks as import, writing nothing: for `payout batch validate`. Never throws for a bad file. */
  async validate(request: ImportRequest): Promise<ValidationReport> {
    const checkPaid = request.checkPaid ?? true;
    const state = new ImportState(
      undefined,
      this.bulk,
      this.deps.cardData,
      checkPaid ? this.payees : undefined,
      checkPaid ? this.payingRows(undefined) : undefined,
      checkPaid ? this.paidAccounts : undefined,
    );
    let file: SpooledUpload | undefined;
    try {
      file = await spoolUpload(request.source, { maxBytes: this.deps.limits.maxBytes });
      if (file.problem !== undefined || file.key === undefined) {
        state.record({ ...(file.problem ?? failed('the file could not be read')), severity: 'error' });
      } else {
        if (!(request.force ?? false)) {
          const earlier = await this.earlier.find(file.key, file.sha256);
          if (earlier !== null) state.record({ ...(await this.earlier.duplicateOf(earlier)), severity: 'error' });
        }
        if (checkPaid) state.othersApproved = await othersApproved(this.query, '');
        const source = file.read();
        try {
          await scanFile(source, state, this.deps);
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
    return reportOf(state);
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
        const holder = key === null ? null : await this.earlier.keyHolder(key);
        // No holder: the batch id was taken, or the holder was rejected meanwhile and let go of the key.
        if (holder !== null) return this.createRejected(fields, await this.earlier.duplicateOf(holder));
      }
    }
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
    const state = new ImportState(id, this.bulk, this.deps.cardData, this.payees, this.payingRows(id), this.paidAccounts);
    const source = file.read();
    const heartbeat = importHeartbeat(id, state, { query: this.query, logger: this.deps.logger, staleMs: this.deps.staleMs });
    try {
      await heartbeat.beat();
      const readable = await scanFile(source, state, this.deps);
      const errors = await prisma.batchProblem.count({ where: { batchId: id, severity: 'error' } });
      const warnings = await prisma.batchProblem.count({ where: { batchId: id, severity: 'warning' } });
      const rejected = errors > 0;
      heartbeat.stop();
      // Only while still VALIDATING: a batch cancelled (or given up by the sweep) meanwhile stays so.
      // The import's end and its outbound event (outbound/) commit together.
      const { count } = await prisma.$transaction(async (tx) => {
        const updated = await tx.batch.updateMany({
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
            heldCount: state.heldRows,
            heldAmount: fromMinorUnits(state.heldMinor),
            changedAccountCount: state.payeeTally.changedOnly,
            changedAccountAmount: fromMinorUnits(state.payeeTally.changedOnlyMinor),
            validatedAt: new Date(),
          },
        });
        if (updated.count === 1) await recordImportEvent(sqlOf(tx), id, errors, warnings);
        return updated;
      });
      if (count === 0) throw new ImportAbandoned();
      const batch = await prisma.batch.findUniqueOrThrow({ where: { id } });
      // A file with errors of its own can never be approved: its rows need no card data.
      if (rejected) await scrubCardData(this.query, { batchIds: [id], retentionDays: null });
      this.deps.logger.info(
        {
          batchId: id,
          status: batch.status,
          rows: state.rows,
          errors,
          warnings,
          held: state.heldRows,
          changedAccounts: state.payeeTally.changedAccounts,
        },
        'batch imported',
      );
      return batch;
    } catch (error) {
      if (error instanceof ImportAbandoned || heartbeat.abandoned) return await abandonImport(this.ends, id, state);
      return await failImport(this.ends, id, state, error);
    } finally {
      heartbeat.stop();
      source.destroy();
    }
  }
}

const nullableRedacted = (text: string | undefined) => (text === undefined ? null : redactCardNumbers(text));

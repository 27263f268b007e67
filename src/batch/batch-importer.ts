import { createHash, randomBytes } from 'node:crypto';
import type { PrismaClient } from '../db/database.ts';
import { bulkInsert, type BulkColumn } from '../db/bulk-insert.ts';
import type { Batch } from '../db/generated/client.ts';
import type { Logger } from '../log/logger.ts';
import { fromMinorUnits, toMinorUnits } from '../money/money.ts';
import type { PayoutClient } from '../payout/client.ts';
import type { ProviderCatalogue } from '../payments/provider-catalogue.ts';
import { CsvFileError, openPayrollCsv } from './csv-reader.ts';
import { validateRow, type RowProblem, type ValidRow } from './validate-row.ts';

export interface BatchLimits {
  maxRows: number;
  maxBytes: number;
}

export interface ImportRequest {
  source: AsyncIterable<Uint8Array>;
  name?: string;
  fileName?: string;
  /** Import a file whose exact bytes were imported before. */
  force?: boolean;
  uploadedBy?: string;
}

/** Rows are written in chunks of this many, so memory stays flat as files grow. */
const CHUNK = 500;

/** Batch ids are short so that `{batchId}-{line}-r{attempt}` fits the 36-character paymentId. */
export function newBatchId(): string {
  return `b${randomBytes(8).toString('hex').slice(0, 11)}`;
}

export function paymentIdFor(batchId: string, line: number, attempt: number): string {
  return attempt === 1 ? `${batchId}-${line}` : `${batchId}-${line}-r${attempt}`;
}

/**
 * Reads a payroll file into a batch: every row validated against the live provider
 * details, every problem stored with its line and column, then the whole-file checks
 * (duplicate references and rows, the total against the balance, a file imported before).
 * The batch ends VALIDATED, or REJECTED when any error was found.
 */
export class BatchImporter {
  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      catalogue: ProviderCatalogue;
      client: PayoutClient;
      limits: BatchLimits;
      logger: Logger;
    },
  ) {}

  async import(request: ImportRequest): Promise<Batch> {
    const { prisma } = this.deps;
    const id = newBatchId();
    await prisma.batch.create({
      data: {
        id,
        name: request.name ?? request.fileName ?? id,
        fileName: request.fileName ?? null,
        fileHash: '0'.repeat(64),
        fileBytes: 0,
        uploadedBy: request.uploadedBy ?? null,
      },
    });
    const { state, digest } = await this.scan(request, new ImportState(id, prisma));
    const errors = await prisma.batchProblem.count({ where: { batchId: id, severity: 'error' } });
    const warnings = await prisma.batchProblem.count({ where: { batchId: id, severity: 'warning' } });
    const batch = await prisma.batch.update({
      where: { id },
      data: {
        status: errors > 0 ? 'REJECTED' : 'VALIDATED',
        fileHash: digest.sha256,
        fileBytes: digest.bytes,
        rowCount: state.rows,
        validCount: state.validRows,
        invalidCount: state.rows - state.validRows,
        warningCount: warnings,
        totalAmount: fromMinorUnits(state.totalMinor),
        validatedAt: new Date(),
      },
    });
    this.deps.logger.info({ batchId: id, status: batch.status, rows: state.rows, errors, warnings }, 'batch imported');
    return batch;
  }

  /** The same checks as import, writing nothing: for `payout batch validate`. */
  async validate(request: ImportRequest): Promise<ValidationReport> {
    const { state } = await this.scan(request, new ImportState(undefined, this.deps.prisma));
    const problems = state.report;
    const errors = problems.filter((p) => p.severity === 'error').length;
    return {
      payable: errors === 0,
      rowCount: state.rows,
      validCount: state.validRows,
      invalidCount: state.rows - state.validRows,
      errorCount: errors,
      warningCount: problems.length - errors,
      totalAmount: fromMinorUnits(state.totalMinor),
      problems,
    };
  }

  private async scan(request: ImportRequest, state: ImportState) {
    const providers = new Map((await this.deps.catalogue.all()).map((p) => [p.code, p]));
    let digest = { bytes: 0, sha256: '0'.repeat(64) };
    let readable = true;
    try {
      const csv = await openPayrollCsv(request.source, { maxBytes: this.deps.limits.maxBytes });
      for await (const row of csv.rows) {
        if (state.rows >= this.deps.limits.maxRows) {
          state.fileProblem('file.too-many-rows', `the file has more than ${this.deps.limits.maxRows} rows`);
          break;
        }
        const { valid, problems } = validateRow(row, providers);
        await state.add(row.line, row.cells.reference, valid, problems);
      }
      digest = csv.digest();
    } catch (error) {
      if (!(error instanceof CsvFileError)) throw error;
      readable = false;
      for (const problem of error.problems) state.problems.push({ ...problem, severity: 'error' });
    }
    await state.flush();
    await this.fileChecks(state, digest.sha256, request.force ?? false, readable);
    await state.flush();
    return { state, digest };
  }

  private async fileChecks(state: ImportState, sha256: string, force: boolean, readable: boolean): Promise<void> {
    if (!readable) return;
    const earlier = await this.deps.prisma.batch.findFirst({
      where: { fileHash: sha256, ...(state.batchId === undefined ? {} : { id: { not: state.batchId } }), status: { not: 'REJECTED' } },
      orderBy: { createdAt: 'asc' },
      select: { id: true, createdAt: true },
    });
    if (earlier !== null && !force) {
      state.fileProblem(
        'file.duplicate',
        `the same file was imported as batch ${earlier.id} on ${earlier.createdAt.toISOString()}; import with force to pay it again`,
      );
    }
    if (state.validRows === 0 && state.rows > 0) state.fileProblem('file.no-valid-rows', 'no row can be paid');
    if (state.rows === 0) state.fileProblem('file.no-rows', 'the file has a header but no rows');
    try {
      const balance = await this.deps.client.getBalance();
      if (state.totalMinor > toMinorUnits(balance.available.value.replace(/^-/, '')) || balance.available.value.startsWith('-')) {
        state.fileProblem(
          'balance.insufficient',
          `the valid rows total ${fromMinorUnits(state.totalMinor)} RUB but only ${balance.available.value} is available (commission comes on top)`,
        );
      }
    } catch (error) {
      state.problems.push({
        line: null,
        column: null,
        code: 'balance.unknown',
        severity: 'warning',
        message: `the balance could not be read (${(error as Error).message}); check it before approving`,
      });
    }
  }
}

interface NewItem {
  batchId: string;
  line: number;
  reference: string | null;
  paymentId: string;
  providerCode: string;
  amount: string;
  currency: string;
  fields: Record<string, string>;
  customFields: Record<string, string> | null;
  status: 'PENDING' | 'INVALID';
  errorCode: string | null;
  errorMessage: string | null;
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

const itemColumns: BulkColumn<NewItem>[] = [
  { name: 'batchId', value: (i) => i.batchId },
  { name: 'line', cast: 'integer', value: (i) => i.line },
  { name: 'reference', value: (i) => i.reference },
  { name: 'paymentId', value: (i) => i.paymentId },
  { name: 'providerCode', value: (i) => i.providerCode },
  { name: 'amount', cast: 'numeric', value: (i) => i.amount },
  { name: 'currency', value: (i) => i.currency },
  { name: 'fields', cast: 'jsonb', value: (i) => json(i.fields) },
  { name: 'customFields', cast: 'jsonb', value: (i) => json(i.customFields) },
  { name: 'status', cast: '"BatchItemStatus"', value: (i) => i.status },
  { name: 'errorCode', value: (i) => i.errorCode },
  { name: 'errorMessage', value: (i) => i.errorMessage },
  { name: 'updatedAt', cast: 'timestamptz', value: () => new Date().toISOString() },
];

const problemColumns: BulkColumn<RowProblem & { batchId: string }>[] = [
  { name: 'batchId', value: (p) => p.batchId },
  { name: 'line', cast: 'integer', value: (p) => p.line },
  { name: 'column', value: (p) => p.column },
  { name: 'code', value: (p) => p.code },
  { name: 'severity', value: (p) => p.severity },
  { name: 'message', value: (p) => p.message },
];

export interface ValidationReport {
  payable: boolean;
  rowCount: number;
  validCount: number;
  invalidCount: number;
  errorCount: number;
  warningCount: number;
  totalAmount: string;
  problems: RowProblem[];
}

/**
 * Counters and buffers of one import; rows and problems go to the database in chunks.
 * Without a batch id (validation only) nothing is written and problems are kept in `report`.
 */
class ImportState {
  rows = 0;
  validRows = 0;
  totalMinor = 0n;
  problems: RowProblem[] = [];
  readonly report: RowProblem[] = [];
  private items: NewItem[] = [];
  private readonly references = new Map<string, number>();
  private readonly recipients = new Map<string, number>();

  constructor(
    readonly batchId: string | undefined,
    private readonly prisma: PrismaClient,
  ) {}

  fileProblem(code: string, message: string): void {
    this.problems.push({ line: null, column: null, code, severity: 'error', message });
  }

  async add(line: number, reference: string | undefined, valid: ValidRow | undefined, problems: RowProblem[]): Promise<void> {
    this.rows++;
    const all = [...problems, ...this.duplicates(line, reference, valid)];
    this.problems.push(...all);
    const firstError = all.find((p) => p.severity === 'error');
    if (valid !== undefined && firstError === undefined) {
      this.validRows++;
      this.totalMinor += toMinorUnits(valid.amount);
    }
    if (valid !== undefined) {
      this.items.push({
        batchId: this.batchId ?? '',
        line,
        reference: valid.reference ?? null,
        paymentId: paymentIdFor(this.batchId ?? '', line, 1),
        providerCode: valid.providerCode,
        amount: valid.amount,
        currency: valid.currency,
        fields: valid.fields,
        customFields: valid.customFields ?? null,
        status: firstError === undefined ? 'PENDING' : 'INVALID',
        errorCode: firstError?.code ?? null,
        errorMessage: firstError?.message ?? null,
      });
    }
    if (this.items.length >= CHUNK || this.problems.length >= CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.batchId === undefined) {
      this.report.push(...this.problems);
      this.problems = [];
      this.items = [];
      return;
    }
    const batchId = this.batchId;
    await bulkInsert(this.prisma, 'BatchItem', itemColumns, this.items);
    this.items = [];
    await bulkInsert(this.prisma, 'BatchProblem', problemColumns, this.problems.map((problem) => ({ ...problem, batchId })));
    this.problems = [];
  }

  /** A repeated reference is an error; the same recipient and amount twice, a warning. */
  private duplicates(line: number, reference: string | undefined, valid: ValidRow | undefined): RowProblem[] {
    const found: RowProblem[] = [];
    if (reference !== undefined) {
      const first = this.references.get(reference);
      if (first !== undefined) {
        found.push({ line, column: 'reference', code: 'reference.duplicate', severity: 'error', message: `"${reference}" is also on line ${first}` });
      } else this.references.set(reference, line);
    }
    if (valid === undefined) return found;
    // A digest, not the text: these keys are the one thing kept per row for the whole file.
    const key = createHash('sha1').update(JSON.stringify([valid.providerCode, valid.amount, Object.entries(valid.fields).sort()])).digest('base64');
    const same = this.recipients.get(key);
    if (same !== undefined) {
      found.push({ line, column: null, code: 'row.duplicate', severity: 'warning', message: `same provider, recipient and amount as line ${same}` });
    } else this.recipients.set(key, line);
    return found;
  }
}

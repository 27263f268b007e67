import { signedToMinorUnits } from '../../money/money.ts';
import { amountInWords } from '../../money/money-text.ts';
import type { PayoutClient } from '../../payout/client.ts';
import type { ProviderCatalogue, ProviderDetails } from '../../payments/provider-catalogue.ts';
import { redactCardNumbers } from '../../log/card-numbers.ts';
import { ImportAbandoned, ImportFailure, failed } from './import-failure.ts';
import type { ImportState } from './import-state.ts';
import { CsvFileError } from './read/csv-reader.ts';
import { openPayrollFile } from './read/payroll-file.ts';
import { validateRow } from './validate-row.ts';

export interface BatchLimits {
  maxRows: number;
  maxBytes: number;
}

/** What reading a file needs beyond its state: the live provider details, the balance, the limits. */
export interface ScanDeps {
  catalogue: ProviderCatalogue;
  client: PayoutClient;
  limits: BatchLimits;
}

/*
 * One pass over a payroll file, the same for an import and for `payout batch validate`
 * (batch-importer.ts): every row checked against the live provider details, then the file
 * as a whole. What is found goes into the ImportState, which writes it or only counts it.
 */

/** Reads and checks every row; false when the file could not be read to its end. */
export async function scanFile(source: AsyncIterable<Uint8Array>, state: ImportState, deps: ScanDeps): Promise<boolean> {
  let providers: Map<string, ProviderDetails>;
  try {
    providers = new Map((await deps.catalogue.all()).map((p) => [p.code, p]));
  } catch (error) {
    throw new ImportFailure(
      failed(
        `the provider details could not be read from the payout service (${redactCardNumbers((error as Error).message ?? String(error)).slice(0, 200)}); import the file again later`,
      ),
    );
  }
  let readable = true;
  let empty: (() => number[]) | undefined;
  try {
    const csv = await openPayrollFile(source, { maxBytes: deps.limits.maxBytes });
    empty = csv.emptyRows;
    const batches = csv.batches ?? oneByOne(csv.rows);
    reading: for await (const batch of batches) {
      for (const row of batch) {
        if (state.abandoned) throw new ImportAbandoned();
        if (state.rows >= deps.limits.maxRows) {
          state.fileProblem('file.too-many-rows', `the file has more than ${deps.limits.maxRows} rows`);
          break reading;
        }
        const { valid, problems } = validateRow(row, providers);
        // Only a full chunk waits (for the chunk before it to be written).
        const written = state.add(row.line, row.cells.reference, valid, problems);
        if (written !== undefined) await written;
      }
    }
  } catch (error) {
    if (!(error instanceof CsvFileError)) throw error;
    readable = false;
    for (const problem of error.problems) state.record({ ...problem, severity: 'error' });
  }
  if (readable && empty !== undefined) state.skippedEmpty(empty());
  await state.flush();
  if (readable) await fileChecks(state, deps.client);
  await state.flush();
  return readable;
}

async function* oneByOne<T>(items: AsyncIterable<T>): AsyncGenerator<T[]> {
  for await (const item of items) yield [item];
}

/** The checks of the file as a whole, once every row is read: rows to pay, and the balance against them. */
async function fileChecks(state: ImportState, client: PayoutClient): Promise<void> {
  if (state.validRows === 0 && state.rows > 0) state.fileProblem('file.no-valid-rows', 'no row can be paid');
  if (state.rows === 0) state.fileProblem('file.no-rows', 'the file has a header but no rows');
  try {
    const balance = await client.getBalance();
    const payable = state.totalMinor - state.heldMinor - state.payeeTally.changedOnlyMinor;
    const available = signedToMinorUnits(balance.available.value);
    if (available < 0n || payable > available) {
      // A warning: the balance may be topped up before approval, which weighs it against
      // every approved batch and their commission and refuses what it cannot cover.
      state.record({
        line: null,
        column: null,
        code: 'balance.insufficient',
        severity: 'warning',
        message: `the valid rows total ${amountInWords(payable, 'RUB')}${state.heldRows + state.payeeTally.changedOnly > 0 ? ' (without the held rows)' : ''} but only ${amountInWords(balance.available.value, balance.available.currency)} is available (commission comes on top): top up before approval, which refuses what the balance does not cover`,
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

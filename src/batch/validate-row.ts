import { currencies, providerCodes, type Currency, type ProviderCode } from '../payout/models.ts';
import { checkPaymentAgainstProvider } from '../payments/check-payment.ts';
import type { ProviderDetails } from '../payments/provider-catalogue.ts';
import { quoteCell } from './cell-text.ts';
import { parseCsvAmount } from './csv-amount.ts';
import { CUSTOM_PREFIX, recipientColumns } from './csv-columns.ts';
import type { CsvRow } from './csv-reader.ts';

export type Severity = 'error' | 'warning';

export interface RowProblem {
  line: number | null;
  column: string | null;
  code: string;
  severity: Severity;
  message: string;
}

export interface ValidRow {
  line: number;
  reference?: string;
  providerCode: ProviderCode;
  amount: string;
  currency: Currency;
  fields: Record<string, string>;
  customFields?: Record<string, string>;
}

const MAX_REFERENCE = 64;

/**
 * One row against the live provider details: provider, currency, amount format and
 * limits, required recipient fields, their patterns, and fields the provider does not
 * take. Every problem names its line and column.
 */
export function validateRow(row: CsvRow, providers: ReadonlyMap<string, ProviderDetails>): { valid?: ValidRow; problems: RowProblem[] } {
  const { line, cells } = row;
  const problems: RowProblem[] = [];
  const error = (column: string | null, code: string, message: string) =>
    problems.push({ line, column, code, severity: 'error', message });

  if (row.cellCount !== undefined) error(null, 'row.cells', `has ${row.cellCount} cells where the header has a different number`);
  const reference = cells.reference;
  if (reference !== undefined && reference.length > MAX_REFERENCE) error('reference', 'reference.too-long', `is longer than ${MAX_REFERENCE} characters`);

  const providerText = cells.provider?.toLowerCase();
  const provider = providerText === undefined ? undefined : providers.get(providerText);
  if (providerText === undefined) error('provider', 'provider.missing', 'is empty');
  else if (provider === undefined) {
    error('provider', 'provider.unknown', `${quoteCell(cells.provider ?? '')} is not a provider; use one of ${providerCodes.join(', ')}`);
  }

  const amount = cells.amount === undefined ? { error: 'is empty' } : parseCsvAmount(cells.amount);
  if ('error' in amount) error('amount', 'amount.format', amount.error);

  const currencyText = (cells.currency ?? 'RUB').toUpperCase();
  const currency = (currencies as readonly string[]).includes(currencyText) ? (currencyText as Currency) : undefined;
  if (currency === undefined) error('currency', 'currency.unknown', `${quoteCell(cells.currency ?? '')} is not a currency the service pays in (${currencies.join(', ')})`);

  const fields: Record<string, string> = {};
  for (const column of recipientColumns) {
    const value = cells[column];
    // Card numbers are often written in groups of four.
    if (value !== undefined) fields[column] = column === 'pan' ? value.replace(/[ \u00A0]/g, '') : value;
  }
  const customFields = Object.fromEntries(
    Object.entries(cells)
      .filter(([column]) => column.startsWith(CUSTOM_PREFIX))
      .map(([column, value]) => [column.slice(CUSTOM_PREFIX.length), value]),
  );

  if (provider !== undefined && 'value' in amount && currency !== undefined) {
    for (const problem of checkPaymentAgainstProvider(
      { amount: { value: amount.value, currency }, recipientDetails: { providerCode: provider.code, fields } },
      provider,
    )) {
      const column = problem.path[0] === 'recipient' ? (problem.path[1] ?? null) : (problem.path[0] ?? null);
      error(column, problem.code ?? 'row.invalid', problem.message);
    }
  }
  if (problems.length > 0 || provider === undefined || !('value' in amount) || currency === undefined) return { problems };
  return {
    problems,
    valid: {
      line,
      ...(reference === undefined ? {} : { reference }),
      providerCode: provider.code,
      amount: amount.value,
      currency,
      fields,
      ...(Object.keys(customFields).length === 0 ? {} : { customFields }),
    },
  };
}

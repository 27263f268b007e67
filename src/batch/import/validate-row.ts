import { currencies, providerCodes, type Currency, type ProviderCode } from '../../payout/models.ts';
import { moneyObject } from '../../money/money-wire.ts';
import { cardNumberProblems, fieldsNamed, providerProblems } from '../../payments/check-payment.ts';
import type { ProviderDetails } from '../../payments/provider-catalogue.ts';
import { maskPan, maskTail } from '../../log/mask.ts';
import { cardNumberMessage, containsCardNumber } from '../../log/card-numbers.ts';
import { quoteCell } from './read/cell-text.ts';
import { parseCsvAmount } from './read/csv-amount.ts';
import { CUSTOM_PREFIX, recipientColumns } from './read/csv-columns.ts';
import type { CsvRow } from './read/csv-reader.ts';
import { formatOf, passesPattern } from '../../payout/field-formats.ts';
import { looksDomestic, rewriteCard, rewritePhone, type Rewrite } from './field-normalise.ts';

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
  /** The company's id of the person paid (the optional payee column). */
  payeeId?: string;
  providerCode: ProviderCode;
  amount: string;
  currency: Currency;
  fields: Record<string, string>;
  customFields?: Record<string, string>;
}

const MAX_REFERENCE = 64;
/** BatchItem.payeeId and PayeeAccount.payeeId are this long. */
export const MAX_PAYEE_ID = 36;
/** An employee or contractor id: letters, digits and a few separators, no spaces. */
const PAYEE_ID = /^[\p{L}\p{N}][\p{L}\p{N}._/-]*$/u;
/** No field has a card number: the common case, without a new set per row. */
const NONE: ReadonlySet<string> = new Set();

/**
 * One row against the live provider details: provider, currency, amount format and
 * limits, required recipient fields, their patterns, and fields the provider does not
 * take. Every problem names its line and column.
 */
export function validateRow(
  row: CsvRow & { padded?: readonly string[] },
  providers: ReadonlyMap<string, ProviderDetails>,
): { valid?: ValidRow; problems: RowProblem[] } {
  const { line, cells } = row;
  const problems: RowProblem[] = [];
  const error = (column: string | null, code: string, message: string) => problems.push({ line, column, code, severity: 'error', message });

  const reference = cells.reference;
  if (row.cellCount !== undefined) {
    const split =
      row.splitAmount === undefined
        ? ''
        : row.splitAt === 'thousands'
          ? `: the amount ${quoteCell(row.splitAmount)} was split in two at its thousands comma; put the amount in quotes ("${row.splitAmount}"), write it without the comma (${row.splitAmount.replace(',', '')}), or save the file with ; as the separator`
          : `: the amount ${quoteCell(row.splitAmount)} was split in two at its decimal comma; put the amount in quotes ("${row.splitAmount}") or save the file with ; as the separator`;
    error(null, 'row.cells', `has ${row.cellCount} cells where the header has ${row.headerCells ?? 'another number'}${split}`);
  }
  // The reference is stored, exported and searched as written.
  if (reference !== undefined && containsCardNumber(reference)) error('reference', 'reference.card-number', cardNumberMessage(reference));
  if (row.cellCount !== undefined) {
    // Its cells are out of place: what they would fail says nothing. Card numbers are still looked for: the row is stored.
    const cards = cardNumberProblems(pick(cells, recipientColumns), customFieldsOf(cells));
    for (const { path, code, message } of cards) error(cardColumn(path), code!, message);
    return { problems };
  }
  if (reference !== undefined && reference.length > MAX_REFERENCE)
    error('reference', 'reference.too-long', `is longer than ${MAX_REFERENCE} characters`);
  const payeeId = cells.payee;
  if (payeeId !== undefined) {
    const problem = payeeIdProblem(payeeId);
    if (problem !== undefined) error('payee', problem.code, problem.message);
  }

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
  if (currency === undefined)
    error(
      'currency',
      'currency.unknown',
      `${quoteCell(cells.currency ?? '')} is not a currency the service pays in (${currencies.join(', ')})`,
    );

  for (const column of row.padded ?? []) {
    problems.push({
      line,
      column,
      code: 'cell.trimmed',
      severity: 'warning',
      message: 'spaces at the start or end of the cell were removed',
    });
  }
  const fields: Record<string, string> = {};
  for (const column of recipientColumns) {
    const value = cells[column];
    if (value !== undefined) fields[column] = provider === undefined ? value : normalise(column, value, provider, line, problems);
  }
  const customFields = customFieldsOf(cells);
  // Free text is stored, exported and sent as written: checked whatever else is wrong with the row.
  const cards = cardNumberProblems(fields, customFields);
  for (const { path, code, message } of cards) error(cardColumn(path), code!, message);

  if (provider !== undefined && 'value' in amount && currency !== undefined) {
    for (const problem of providerProblems(
      { amount: moneyObject(amount.value, currency), recipientDetails: { providerCode: provider.code, fields } },
      provider,
      cards.length === 0 ? NONE : fieldsNamed(cards),
    )) {
      const column = problem.path[0] === 'recipient' ? (problem.path[1] ?? null) : (problem.path[0] ?? null);
      error(column, problem.code ?? 'row.invalid', problem.message);
    }
  }
  if (problems.some((p) => p.severity === 'error') || provider === undefined || !('value' in amount) || currency === undefined)
    return { problems };
  return {
    problems,
    valid: {
      line,
      ...(reference === undefined ? {} : { reference }),
      ...(payeeId === undefined ? {} : { payeeId }),
      providerCode: provider.code,
      amount: amount.value,
      currency,
      fields,
      ...(Object.keys(customFields).length === 0 ? {} : { customFields }),
    },
  };
}

/** What is wrong with a payee id, if anything: the same rule for a file's cell and createPayment's argument. */
export function payeeIdProblem(payeeId: string): { code: string; message: string } | undefined {
  // Stored, exported and shown: an id that reads as a card number is refused like a reference.
  if (containsCardNumber(payeeId)) return { code: 'payee.card-number', message: cardNumberMessage(payeeId) };
  if (payeeId.length > MAX_PAYEE_ID)
    return {
      code: 'payee.too-long',
      message: `is longer than ${MAX_PAYEE_ID} characters; give the payee's short id (an employee or contractor number)`,
    };
  if (!PAYEE_ID.test(payeeId)) {
    return {
      code: 'payee.format',
      message: `${quoteCell(payeeId)} is not a payee id: use letters, digits and . _ / - only, starting with a letter or digit`,
    };
  }
  return undefined;
}

function customFieldsOf(cells: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(cells)
      .filter(([column]) => column.startsWith(CUSTOM_PREFIX))
      .map(([column, value]) => [column.slice(CUSTOM_PREFIX.length), value]),
  );
}

function pick(cells: Record<string, string>, columns: readonly string[]): Record<string, string> {
  return Object.fromEntries(columns.flatMap((column) => (cells[column] === undefined ? [] : [[column, cells[column]!]])));
}

/** The file column a card-number problem is about. */
function cardColumn(path: readonly string[]): string | null {
  return path[1] === undefined ? null : path[0] === 'customFields' ? `${CUSTOM_PREFIX}${path[1]}` : path[1];
}

/**
 * A recipient value as it will be paid: phone numbers and card numbers lose separators
 * (a warning says so, card numbers masked) when that makes them pass the provider's
 * pattern; anything else is kept as written, so the pattern check reports it.
 */
function normalise(column: string, value: string, provider: ProviderDetails, line: number, problems: RowProblem[]): string {
  const parameter = provider.info.parameters.find((p) => p.extKey === column);
  if (parameter === undefined) return value;
  const kind = formatOf(parameter, provider.code).kind;
  const rewrite: Rewrite | undefined = kind === 'phone' ? rewritePhone(value) : kind === 'card' ? rewriteCard(value) : undefined;
  const candidate = rewrite?.value ?? value;
  // No warning for the separators: they were not what was wrong. The leading 8 is the
  // provider check's to report (check-payment.ts), in the words createPayment gives too.
  if (kind === 'phone' && looksDomestic(value, candidate)) return candidate;
  if (rewrite === undefined || !passesPattern(parameter.validationPattern, rewrite.value)) return value;
  const shown = kind === 'card' ? `the card number ${maskPan(rewrite.value)}` : `the phone number (read as ${maskTail(rewrite.value)})`;
  problems.push({
    line,
    column,
    code: kind === 'card' ? 'pan.normalised' : 'phone.normalised',
    severity: 'warning',
    message: `${rewrite.removed} removed from ${shown}`,
  });
  return rewrite.value;
}

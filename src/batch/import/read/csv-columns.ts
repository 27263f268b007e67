import { quoteCell } from './cell-text.ts';

/** Recipient fields by their spec names; a column of each may appear in the file. */
export const recipientColumns = [
  'pan',
  'account',
  'bankId',
  'lastName',
  'firstName',
  'middleName',
  'purpose',
  'cardholder_name',
  'cardholder_lastname',
  'description',
] as const;

/** The recipient fields that say who is paid (the rest, purpose and description, say what for). */
export const identityColumns = recipientColumns.filter((column) => column !== 'purpose' && column !== 'description');

export const baseColumns = ['reference', 'provider', 'amount', 'currency'] as const;
export const requiredColumns = ['provider', 'amount'] as const;
/**
 * Who the row pays in the company's own terms (an employee or contractor id): optional, and
 * not sent to the partner. It lets the gateway notice a payee's account changing between
 * payments (src/payees/payee-marks.ts). Kept apart from baseColumns, which the templates
 * fill with an example each.
 */
export const PAYEE_COLUMN = 'payee';
/** Other header names for the payee column, as payroll exports in Russian name it. */
const payeeAliases = ['payee id', 'payee_id', 'payeeid', 'табельный номер', 'таб. номер', 'таб.номер', 'код получателя'];
export const CUSTOM_PREFIX = 'custom.';
/**
 * The known columns are 14, the rest custom.<key>; a header far wider is not a payroll
 * file, and listing each of its cells as a problem would be a problem of its own.
 */
export const MAX_COLUMNS = 200;

const canonical = new Map<string, string>([
  ...[...baseColumns, PAYEE_COLUMN, ...recipientColumns].map((name): [string, string] => [name.toLowerCase(), name]),
  ...payeeAliases.map((alias): [string, string] => [alias, PAYEE_COLUMN]),
]);

export type ColumnResult = { name: string } | { error: string };

/** A header cell's column: known names in any case, or `custom.<key>`. */
export function columnFor(header: string): ColumnResult {
  const text = header.trim();
  const known = canonical.get(text.toLowerCase());
  if (known !== undefined) return { name: known };
  if (text.toLowerCase().startsWith(CUSTOM_PREFIX) && text.length > CUSTOM_PREFIX.length) {
    return { name: `${CUSTOM_PREFIX}${text.slice(CUSTOM_PREFIX.length)}` };
  }
  return {
    error: `unknown column ${quoteCell(text)}; known columns are ${[...baseColumns, PAYEE_COLUMN, ...recipientColumns].join(', ')} and custom.<key>`,
  };
}

import { identityColumns } from './read/csv-columns.ts';
import type { ValidRow } from './validate-row.ts';

/**
 * Who a row pays, as text: the provider and the recipient's identity (card or account,
 * bank, names), trimmed and in lower case, in a fixed column order so that a file with
 * its columns re-ordered or re-typed gives the same text. Purpose and description are
 * free text about the payment, not about the payee, so they are left out. Never stored.
 */
export function payeeText(row: Pick<ValidRow, 'providerCode' | 'fields'>): string {
  let text = row.providerCode;
  for (const column of identityColumns) {
    const value = row.fields[column]?.trim().toLowerCase();
    if (value !== undefined && value !== '') text += `\u0000${column}\u0000${value}`;
  }
  return text;
}

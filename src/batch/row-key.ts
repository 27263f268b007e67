import { createHash } from 'node:crypto';
import type { ValidRow } from './validate-row.ts';

/**
 * Identifies a row's provider, recipient and amount for the duplicate-row warning. The
 * key of every row is kept for the whole file, so it is 12 bytes of a hash in a one-byte
 * string (96 bits: no collision to expect in any file this service accepts), not text.
 */
export function recipientKey(row: Pick<ValidRow, 'providerCode' | 'amount' | 'fields'>): string {
  const fields = Object.entries(row.fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify([row.providerCode, row.amount, fields])).digest().toString('latin1', 0, 12);
}

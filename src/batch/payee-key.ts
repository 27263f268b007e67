import { createHmac } from 'node:crypto';
import type { DataKeyring } from '../crypto/data-keys.ts';
import { identityColumns } from './csv-columns.ts';
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

/**
 * The payee compared across batches through a keyed hash (HMAC-SHA256 under a key derived
 * from the card-data key), so the database holds no one's card or account in clear and a
 * stolen copy of it cannot be searched for a known card. 128 bits are kept: far from any
 * collision at payroll sizes. Every key of the keyring gives a candidate, so rows hashed
 * before a key rotation are still found while the old key is kept for decryption.
 */
export class PayeeKeys {
  private readonly current: Buffer;
  private readonly all: Buffer[];

  constructor(keyring: DataKeyring) {
    const derive = (key: Buffer) => createHmac('sha256', key).update('payout-gateway payee key v1').digest();
    this.current = derive(keyring.current.key);
    this.all = [this.current, ...keyring.ids.filter((id) => id !== keyring.current.id).map((id) => derive(keyring.find(id)!.key))];
  }

  /** The key stored with a row. */
  of(payee: string): string {
    return hash(this.current, payee);
  }

  /** The keys an earlier row of this payee may be stored under (the current one first). */
  candidates(payee: string): string[] {
    return this.all.length === 1 ? [this.of(payee)] : this.all.map((key) => hash(key, payee));
  }
}

function hash(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex').slice(0, 32);
}

import { PayeeMark } from '../db/generated/enums.ts';
import { utcDay } from '../money/readable-text.ts';

/**
 * Payees and changed accounts (docs/decisions/0024-payee-accounts.md). A row or payment that
 * names its payee (the company's id for a person) is compared with the account that payee
 * was last paid to: never paid (NEW_PAYEE), paid to this account (KNOWN), or paid to
 * another one (ACCOUNT_CHANGED, with the day of that payment). A changed account is the
 * usual way payroll money is diverted (a forged "please use my new card" to HR), so such a
 * row is held until the approver includes it; a new payee is only said.
 */
export const payeeMarks = PayeeMark;
export type { PayeeMark };

/** The recipient fields that say where the money goes; names may be corrected without the account changing. */
export const accountColumns = ['pan', 'account', 'bankId'] as const;

/** Problem code of a row held for a changed account. */
export const ACCOUNT_CHANGED = 'row.account-changed';

/** The account a row pays, as text for the keyed hash (payee-keys.ts): never stored. */
export function accountText(providerCode: string, fields: Readonly<Record<string, string | undefined>>): string {
  let text = `account\u0000${providerCode}`;
  for (const column of accountColumns) {
    const value = fields[column]?.trim().toLowerCase();
    if (value !== undefined && value !== '') text += `\u0000${column}\u0000${value}`;
  }
  return text;
}

/** What PayeeAccount holds for one payee. */
export interface PaidAccount {
  payeeId: string;
  accountKey: string;
  lastPaidAt: Date;
}

export interface Marked {
  mark: PayeeMark;
  /** KNOWN and ACCOUNT_CHANGED: when the payee was last paid. */
  lastPaidAt: Date | null;
}

/**
 * The mark of a row paying `accountKeys` (the account's keyed hash under every key of the
 * keyring, current first: one stored before a key rotation still matches).
 */
export function markOf(paid: PaidAccount | undefined, accountKeys: readonly string[]): Marked {
  if (paid === undefined) return { mark: payeeMarks.NEW_PAYEE, lastPaidAt: null };
  const known = accountKeys.includes(paid.accountKey.trimEnd());
  return { mark: known ? payeeMarks.KNOWN : payeeMarks.ACCOUNT_CHANGED, lastPaidAt: paid.lastPaidAt };
}

/** The warning on a row held for a changed account; words and a day, never an enum name. */
export function accountChangedMessage(payeeId: string, lastPaidAt: Date): string {
  return `payee ${payeeId} was last paid on ${utcDay(lastPaidAt)} to another account; held back, paid only if the approver includes rows whose account changed`;
}

/** Why a single payment to a changed account is not executed, and the argument that executes it; words and a day. */
export function paymentAccountChangedMessage(paymentId: string, payeeId: string, lastPaidAt: Date): string {
  return (
    `payment ${paymentId} is READY and not executed: payee ${payeeId} was last paid on ${utcDay(lastPaidAt)} to another account; ` +
    'confirm the new account with the payee, then execute it with includeChangedAccount: true'
  );
}

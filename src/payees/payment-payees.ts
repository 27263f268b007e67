import type { SqlQuery } from '../db/database.ts';
import { accountText, markOf, type PayeeMark } from './payee-marks.ts';
import type { PayeeKeys } from './payee-keys.ts';
import { findPaidAccounts } from './sql/find-paid-accounts.ts';

/** A single payment's payee as createPayment records it on the payment (Payment.payeeId, accountKey, payeeMark, payeeLastPaidAt). */
export interface PaymentPayee {
  payeeId: string;
  /** The account's keyed hash under the current key: what PayeeAccount remembers once it is paid. */
  accountKey: string;
  mark: PayeeMark;
  /** KNOWN and ACCOUNT_CHANGED: when the payee was last paid. */
  lastPaidAt: Date | null;
}

/**
 * The payee marks of single payments (issue 30, part 4): the same keyed account and the
 * same comparison with the account last paid as a payroll row's (batch/import/mark-payees.ts),
 * so a row and a payment to one payee see each other's accounts.
 */
export class PaymentPayees {
  constructor(
    private readonly keys: PayeeKeys,
    private readonly query: SqlQuery,
  ) {}

  /** The mark of a payment paying `fields` through `providerCode` to `payeeId` (a valid payee id). */
  async mark(payeeId: string, providerCode: string, fields: Readonly<Record<string, string | undefined>>): Promise<PaymentPayee> {
    const accountKeys = this.keys.candidates(accountText(providerCode, fields));
    const paid = (await findPaidAccounts(this.query, [payeeId])).get(payeeId);
    return { payeeId, accountKey: accountKeys[0]!, ...markOf(paid, accountKeys) };
  }
}

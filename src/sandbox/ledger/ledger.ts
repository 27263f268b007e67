import { fromMinorUnits, toMinorUnits } from '../../money/money.ts';
import { moneyObject } from '../../money/money-wire.ts';
import type { Payment } from '../../payout/models.ts';
import { formatDateTime } from '../clock.ts';
import { sandboxOutcome } from '../outcomes.ts';
import { clone, describeEffects, describeBalanceLedger, newBillingDetails, seededPayment, tariffCommission } from './ledger-entries.ts';
import type { BalanceLedger, Entry, PaymentChange, PaymentEffects, SeedRequest } from './ledger-entries.ts';
import { PartnerLedger } from './partner-ledger.ts';

export {
  SEARCH_WINDOW_DAYS,
  type BalanceLedger,
  type LedgerOptions,
  type ListQuery,
  type MoneyTotal,
  type PaymentChange,
  type PaymentEffects,
  type SeedRequest,
} from './ledger-entries.ts';

/**
 * The sandbox's money and payments: the partner API's moves (partner-ledger.ts) and, here,
 * what only a sandbox does: its test features (payments behind the gateway's back, changes
 * upstream, the balance at run time) and what it shows of itself under /_sandbox/.
 */
export class SandboxLedger extends PartnerLedger {
  /**
   * Test feature: the balance set or topped up at run time, kept across restarts. Money
   * that IN_PROGRESS payments hold already left the balance: setting it lower than that
   * leaves them be, and what a failing one gives back comes on top of the value set.
   * Executes above what is then available fail INSUFFICIENT_FUNDS, as always.
   */
  adjustBalance(change: { set: string } | { add: string }): void {
    const delta = 'set' in change ? toMinorUnits(change.set) - this.balanceMinor : toMinorUnits(change.add);
    this.balanceMinor += delta;
    this.adjustmentsMinor += delta;
    this.balanceUpdatedAt = this.options.now();
    this.options.stored?.log.appendBalance(this.balanceMinor, this.adjustmentsMinor, this.balanceUpdatedAt);
  }

  /**
   * Test feature: payments made "behind the gateway's back" (another system with the
   * agent's credentials), straight into the ledger with the status asked for. COMPLETED
   * and IN_PROGRESS ones take their money from the balance as an execute would. No
   * webhook: nobody gave a webhookUrl. Written to the log in one go.
   */
  seed(request: SeedRequest): Payment[] {
    const provider = request.provider;
    const amountMinor = toMinorUnits(request.amount);
    const commissionMinor = request.commission === undefined ? tariffCommission(provider, amountMinor) : toMinorUnits(request.commission);
    for (const paymentId of request.paymentIds) this.assertAbsent(paymentId);
    const made: Entry[] = [];
    for (const paymentId of request.paymentIds) {
      const createdAt = request.createdAt ?? this.options.now();
      const payment = seededPayment(request, paymentId, { createdAt, expiryMs: this.options.expiryMs, amountMinor, commissionMinor });
      const entry: Entry = {
        payment,
        createdAt,
        sequence: this.sequence++,
        outcome: sandboxOutcome(provider.code, request.fields),
        amountMinor,
        commissionMinor,
        effects: { createCalls: 0, creates: 1, executeCalls: 0, executions: request.status === 'READY' ? 0 : 1, debitedMinor: 0n },
      };
      if (request.status === 'COMPLETED' || request.status === 'IN_PROGRESS') this.debit(entry, amountMinor + commissionMinor);
      this.add(entry);
      made.push(entry);
      if (request.status === 'READY')
        this.schedule(entry, Math.max(0, createdAt + this.options.expiryMs - this.options.now()), () => this.expire(entry));
      if (request.status === 'IN_PROGRESS') this.schedule(entry, this.options.inProgressMs, () => this.settle(entry));
    }
    this.persistMany(made);
    return made.map((entry) => clone(entry.payment));
  }

  /**
   * Test feature: what the upstream holds for a payment changes without the gateway being
   * told (a webhook lost, unless `notify`). The balance follows the money: a payment that
   * stops being COMPLETED or IN_PROGRESS gives its charge back, one that becomes so takes it.
   */
  alter(paymentId: string, change: PaymentChange): Payment {
    const entry = this.find(paymentId);
    clearTimeout(entry.timer);
    if (change.amount !== undefined) {
      entry.amountMinor = toMinorUnits(change.amount);
      entry.payment.amount = { ...entry.payment.amount, value: fromMinorUnits(entry.amountMinor) };
    }
    if (change.commission !== undefined) {
      entry.commissionMinor = toMinorUnits(change.commission);
      entry.payment.commission = moneyObject(entry.commissionMinor, 'RUB');
    }
    if (change.fields !== undefined) entry.payment.recipientDetails = { ...entry.payment.recipientDetails, fields: { ...change.fields } };
    const value = change.status ?? entry.payment.status.value;
    const holdsMoney = value === 'COMPLETED' || value === 'IN_PROGRESS';
    const charge = holdsMoney ? entry.amountMinor + entry.commissionMinor : 0n;
    if (charge !== entry.effects.debitedMinor) this.debit(entry, charge - entry.effects.debitedMinor);
    if (change.status !== undefined || change.errorCode !== undefined) {
      const now = this.options.now();
      const status: Payment['status'] = { value, changedDateTime: formatDateTime(now) };
      const errorCode = change.errorCode ?? (value === 'FAILED' ? 'BILLING_DECLINED' : value === 'EXPIRED' ? 'EXPIRED' : undefined);
      if (errorCode !== undefined)
        Object.assign(status, { errorCode, errorMessage: change.errorMessage ?? 'Changed in the sandbox (test feature)' });
      entry.payment.status = status;
      if (value === 'COMPLETED' && entry.payment.billingDetails === undefined) {
        entry.payment.billingDetails = newBillingDetails();
      }
    }
    this.persist(entry);
    if (change.notify === true) this.options.onStatusChange(clone(entry.payment));
    return clone(entry.payment);
  }

  effects(paymentId: string): PaymentEffects | undefined {
    const entry = this.entries.get(paymentId);
    if (entry !== undefined) return describeEffects(entry);
    const pending = this.calls.get(paymentId);
    return pending && { paymentId, status: 'NONE', ...pending, creates: 0, executions: 0, debited: '0.00' };
  }

  /** Every paymentId called, those whose create never took effect included. */
  allEffects(): PaymentEffects[] {
    const called = [...this.calls.keys()].map((paymentId) => this.effects(paymentId)!);
    return [...[...this.entries.values()].map(describeEffects), ...called];
  }

  balanceLedger(): BalanceLedger {
    return describeBalanceLedger(this.entries.values(), {
      startingMinor: this.startingBalanceMinor,
      adjustmentsMinor: this.adjustmentsMinor,
      balanceMinor: this.balanceMinor,
    });
  }
}

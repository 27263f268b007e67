import { fromMinorUnits, toMinorUnits } from '../../money/money.ts';
import type { Balance, Balances, Payment, PaymentPayload } from '../../payout/models.ts';
import { SandboxApiError } from '../api-error.ts';
import type { SandboxProvider } from '../catalogue.ts';
import { DAY_MS, formatDateTime } from '../clock.ts';
import type { PaymentRecord } from './ledger-log.ts';
import { sandboxOutcome } from '../outcomes.ts';
import {
  clone,
  describeEffects,
  describeBalanceLedger,
  newBillingDetails,
  failed,
  seededPayment,
  tariffCommission,
  olderFirst,
  record,
  rub,
  SEARCH_WINDOW_DAYS,
} from './ledger-entries.ts';
import type { BalanceLedger, Entry, LedgerOptions, ListQuery, PaymentChange, PaymentEffects, SeedRequest } from './ledger-entries.ts';

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
 * The sandbox's money and payments. Every transition happens synchronously, so two
 * requests for one payment can never both take effect.
 */
export class SandboxLedger {
  private readonly entries = new Map<string, Entry>();
  /** Every entry by (createdAt, sequence), oldest first: a list page is a slice, not a sort. */
  private readonly byTime: Entry[] = [];
  private readonly calls = new Map<string, { createCalls: number; executeCalls: number }>();
  private balanceMinor: bigint;
  private balanceUpdatedAt: number;
  private readonly startingBalanceMinor: bigint;
  private adjustmentsMinor: bigint;
  private sequence = 0;

  constructor(private readonly options: LedgerOptions) {
    const state = options.stored?.state;
    this.startingBalanceMinor = state?.startingBalanceMinor ?? options.balanceMinor;
    this.adjustmentsMinor = state?.adjustmentsMinor ?? 0n;
    this.balanceMinor = state?.balanceMinor ?? options.balanceMinor;
    this.balanceUpdatedAt = state?.balanceUpdatedAt ?? options.now();
    for (const record of state?.payments ?? []) this.restore(record);
    this.byTime.sort(olderFirst);
  }

  balance(): Balance {
    return {
      balance: rub(this.balanceMinor),
      overdraft: rub(this.options.overdraftMinor),
      available: rub(this.availableMinor()),
      updatedTime: formatDateTime(this.balanceUpdatedAt),
    };
  }

  balances(): Balances {
    const { balance, available, updatedTime } = this.balance();
    return { RUB: { balance, available, updatedTime } };
  }

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

  noteCall(operation: 'create' | 'execute', paymentId: string): void {
    const entry = this.entries.get(paymentId);
    const counters = entry?.effects ?? this.pendingCalls(paymentId);
    if (operation === 'create') counters.createCalls++;
    else counters.executeCalls++;
  }

  assertAbsent(paymentId: string): void {
    if (this.entries.has(paymentId)) {
      throw new SandboxApiError('payout.resource.exists', `payment ${paymentId} already exists`, {
        paymentId: ['a payment with this identifier already exists'],
      });
    }
  }

  create(paymentId: string, payload: PaymentPayload, provider: SandboxProvider): Payment {
    this.assertAbsent(paymentId);
    const now = this.options.now();
    const amountMinor = toMinorUnits(payload.amount.value);
    const commissionMinor = tariffCommission(provider, amountMinor);
    const outcome = sandboxOutcome(provider.code, payload.recipientDetails.fields);
    const pending = this.calls.get(paymentId) ?? { createCalls: 0, executeCalls: 0 };
    this.calls.delete(paymentId);
    const payment: Payment = {
      paymentId,
      creationDateTime: formatDateTime(now),
      expirationDateTime: formatDateTime(now + this.options.expiryMs),
      status: outcome.failAtCreate
        ? failed(now, outcome.failureCode, 'The recipient billing refused the payment at creation')
        : { value: 'READY', changedDateTime: formatDateTime(now) },
      amount: { ...payload.amount },
      recipientDetails: { providerCode: provider.code, fields: { ...payload.recipientDetails.fields } },
      commission: rub(commissionMinor),
      ...(payload.webhookUrl === undefined ? {} : { webhookUrl: payload.webhookUrl }),
      ...(payload.customFields === undefined ? {} : { customFields: { ...payload.customFields } }),
    };
    const entry: Entry = {
      payment,
      createdAt: now,
      sequence: this.sequence++,
      outcome,
      amountMinor,
      commissionMinor,
      effects: { ...pending, creates: 1, executions: 0, debitedMinor: 0n },
    };
    this.add(entry);
    this.persist(entry);
    if (!outcome.failAtCreate) this.schedule(entry, this.options.expiryMs, () => this.expire(entry));
    return clone(payment);
  }

  execute(paymentId: string): Payment {
    const entry = this.find(paymentId);
    this.expireIfDue(entry);
    if (entry.payment.status.value !== 'READY') return clone(entry.payment);
    clearTimeout(entry.timer);
    entry.effects.executions++;
    const chargeMinor = entry.amountMinor + entry.commissionMinor;
    if (chargeMinor > this.availableMinor()) {
      this.transition(entry, failed(this.options.now(), 'INSUFFICIENT_FUNDS', 'Not enough funds on the agent balance'));
      return clone(entry.payment);
    }
    if (entry.outcome.execute === 'FAILED') {
      this.transition(entry, failed(this.options.now(), entry.outcome.failureCode, 'The recipient billing declined the payment'));
      return clone(entry.payment);
    }
    // IN_PROGRESS holds the money at once, as a bank would; a later failure returns it.
    this.debit(entry, chargeMinor);
    if (entry.outcome.execute === 'COMPLETED') {
      this.complete(entry);
    } else {
      this.transition(entry, { value: 'IN_PROGRESS', changedDateTime: formatDateTime(this.options.now()) });
      this.schedule(entry, this.options.inProgressMs, () => this.settle(entry));
    }
    return clone(entry.payment);
  }

  get(paymentId: string): Payment {
    const entry = this.find(paymentId);
    this.expireIfDue(entry);
    return clone(entry.payment);
  }

  /** Newest first (createdAt, then sequence), the UTC creation day from..to: O(log n + limit) a page. */
  list(query: ListQuery): Payment[] {
    const lower = this.firstCreatedFrom(Date.parse(`${query.from}T00:00:00Z`));
    const upper = this.firstCreatedFrom(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS);
    const page: Payment[] = [];
    for (let index = upper - 1 - query.offset; index >= lower && page.length < query.limit; index--) {
      const entry = this.byTime[index]!;
      this.expireIfDue(entry);
      page.push(clone(entry.payment));
    }
    return page;
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
      entry.payment.commission = rub(entry.commissionMinor);
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

  close(): void {
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    this.options.stored?.log.close();
  }

  /** A payment from the sandbox directory, with its timers set again for the time left. */
  private restore(record: PaymentRecord): void {
    const { payment } = record;
    const entry: Entry = {
      payment,
      createdAt: record.createdAt,
      sequence: record.sequence,
      outcome: sandboxOutcome(payment.recipientDetails.providerCode, payment.recipientDetails.fields),
      amountMinor: BigInt(record.amountMinor),
      commissionMinor: BigInt(record.commissionMinor),
      effects: { ...record.effects, debitedMinor: BigInt(record.effects.debitedMinor) },
    };
    this.entries.set(payment.paymentId, entry);
    this.byTime.push(entry);
    this.sequence = Math.max(this.sequence, record.sequence + 1);
    const now = this.options.now();
    if (payment.status.value === 'READY') {
      this.schedule(entry, Math.max(0, record.createdAt + this.options.expiryMs - now), () => this.expire(entry));
    } else if (payment.status.value === 'IN_PROGRESS') {
      const since = Date.parse(payment.status.changedDateTime);
      this.schedule(entry, Math.max(0, since + this.options.inProgressMs - now), () => this.settle(entry));
    }
  }

  /** Recorded before the change is answered or notified, so a restart goes on from it. */
  private persist(entry: Entry): void {
    this.options.stored?.log.append(record(entry), this.balanceMinor, this.balanceUpdatedAt);
  }

  private persistMany(entries: Entry[]): void {
    this.options.stored?.log.appendMany(entries.map(record), this.balanceMinor, this.balanceUpdatedAt);
  }

  private add(entry: Entry): void {
    this.entries.set(entry.payment.paymentId, entry);
    const last = this.byTime.at(-1);
    if (last === undefined || olderFirst(last, entry) <= 0) {
      this.byTime.push(entry);
      return;
    }
    // A back-dated payment (a test feature): into its place.
    this.byTime.splice(this.firstCreatedFrom(entry.createdAt, entry.sequence), 0, entry);
  }

  /** Index of the first entry created at or after `epochMs` (and, at that instant, with a sequence of at least `sequence`). */
  private firstCreatedFrom(epochMs: number, sequence = -Infinity): number {
    let low = 0;
    let high = this.byTime.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = this.byTime[middle]!;
      if (entry.createdAt < epochMs || (entry.createdAt === epochMs && entry.sequence < sequence)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private find(paymentId: string): Entry {
    const entry = this.entries.get(paymentId);
    if (entry === undefined || entry.createdAt < this.options.now() - SEARCH_WINDOW_DAYS * DAY_MS) {
      throw new SandboxApiError('payout.payment.not-found', `payment ${paymentId} not found`, {
        paymentId: ['no payment with this identifier in the last 50 days'],
      });
    }
    return entry;
  }

  private pendingCalls(paymentId: string) {
    let counters = this.calls.get(paymentId);
    if (counters === undefined) {
      counters = { createCalls: 0, executeCalls: 0 };
      this.calls.set(paymentId, counters);
    }
    return counters;
  }

  private availableMinor(): bigint {
    return this.balanceMinor + this.options.overdraftMinor;
  }

  private debit(entry: Entry, minor: bigint): void {
    this.balanceMinor -= minor;
    entry.effects.debitedMinor += minor;
    this.balanceUpdatedAt = this.options.now();
  }

  private complete(entry: Entry): void {
    this.transition(entry, { value: 'COMPLETED', changedDateTime: formatDateTime(this.options.now()) }, newBillingDetails());
  }

  private settle(entry: Entry): void {
    if (entry.payment.status.value !== 'IN_PROGRESS') return;
    if (entry.outcome.settle === 'COMPLETED') {
      this.complete(entry);
      return;
    }
    this.debit(entry, -entry.effects.debitedMinor);
    this.transition(entry, failed(this.options.now(), entry.outcome.failureCode, 'The recipient billing declined the payment'));
  }

  private expireIfDue(entry: Entry): void {
    if (entry.payment.status.value === 'READY' && this.options.now() >= entry.createdAt + this.options.expiryMs) {
      this.expire(entry);
    }
  }

  private expire(entry: Entry): void {
    if (entry.payment.status.value !== 'READY') return;
    clearTimeout(entry.timer);
    this.transition(entry, failed(this.options.now(), 'EXPIRED', 'The payment was not executed in time'), undefined, 'EXPIRED');
  }

  private transition(
    entry: Entry,
    status: Payment['status'],
    billingDetails?: Payment['billingDetails'],
    value: Payment['status']['value'] = status.value,
  ): void {
    entry.payment.status = { ...status, value };
    if (billingDetails !== undefined) entry.payment.billingDetails = billingDetails;
    this.persist(entry);
    this.options.onStatusChange(clone(entry.payment));
  }

  private schedule(entry: Entry, delayMs: number, action: () => void): void {
    clearTimeout(entry.timer);
    // setTimeout overflows past ~24.8 days; the lazy expiry check covers longer waits.
    entry.timer = setTimeout(action, Math.min(delayMs, 2 ** 31 - 1));
    entry.timer.unref();
  }
}

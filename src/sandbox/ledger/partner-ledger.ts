import { toMinorUnits } from '../../money/money.ts';
import { moneyObject } from '../../money/money-wire.ts';
import type { Balance, Balances, Payment, PaymentPayload } from '../../payout/models.ts';
import { SandboxApiError } from '../api-error.ts';
import type { SandboxProvider } from '../catalogue.ts';
import { DAY_MS, formatDateTime } from '../clock.ts';
import type { PaymentRecord } from './ledger-log.ts';
import { sandboxOutcome } from '../outcomes.ts';
import { clone, newBillingDetails, failed, tariffCommission, olderFirst, record, SEARCH_WINDOW_DAYS } from './ledger-entries.ts';
import type { Entry, LedgerOptions, ListQuery } from './ledger-entries.ts';

/**
 * The sandbox's money and payments as the partner API moves them: create, execute, read,
 * list, the balance, and the timers that settle and expire payments. Every transition
 * happens synchronously, so two requests for one payment can never both take effect.
 * What only the sandbox does (its test features and what it shows of itself) is
 * SandboxLedger's, in ledger.ts; what it needs of this class is protected.
 */
export class PartnerLedger {
  protected readonly entries = new Map<string, Entry>();
  /** Every entry by (createdAt, sequence), oldest first: a list page is a slice, not a sort. */
  private readonly byTime: Entry[] = [];
  protected readonly calls = new Map<string, { createCalls: number; executeCalls: number }>();
  protected balanceMinor: bigint;
  protected balanceUpdatedAt: number;
  protected readonly startingBalanceMinor: bigint;
  protected adjustmentsMinor: bigint;
  protected sequence = 0;

  constructor(protected readonly options: LedgerOptions) {
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
      balance: moneyObject(this.balanceMinor, 'RUB'),
      overdraft: moneyObject(this.options.overdraftMinor, 'RUB'),
      available: moneyObject(this.availableMinor(), 'RUB'),
      updatedTime: formatDateTime(this.balanceUpdatedAt),
    };
  }

  balances(): Balances {
    const { balance, available, updatedTime } = this.balance();
    return { RUB: { balance, available, updatedTime } };
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
      commission: moneyObject(commissionMinor, 'RUB'),
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
  protected persist(entry: Entry): void {
    this.options.stored?.log.append(record(entry), this.balanceMinor, this.balanceUpdatedAt);
  }

  protected persistMany(entries: Entry[]): void {
    this.options.stored?.log.appendMany(entries.map(record), this.balanceMinor, this.balanceUpdatedAt);
  }

  protected add(entry: Entry): void {
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

  protected find(paymentId: string): Entry {
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

  protected debit(entry: Entry, minor: bigint): void {
    this.balanceMinor -= minor;
    entry.effects.debitedMinor += minor;
    this.balanceUpdatedAt = this.options.now();
  }

  private complete(entry: Entry): void {
    this.transition(entry, { value: 'COMPLETED', changedDateTime: formatDateTime(this.options.now()) }, newBillingDetails());
  }

  protected settle(entry: Entry): void {
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

  protected expire(entry: Entry): void {
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

  protected schedule(entry: Entry, delayMs: number, action: () => void): void {
    clearTimeout(entry.timer);
    // setTimeout overflows past ~24.8 days; the lazy expiry check covers longer waits.
    entry.timer = setTimeout(action, Math.min(delayMs, 2 ** 31 - 1));
    entry.timer.unref();
  }
}

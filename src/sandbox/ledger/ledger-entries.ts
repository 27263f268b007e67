import { randomInt, randomUUID } from 'node:crypto';
import { moneyObject } from '../../money/money-wire.ts';
import { basisPoints, fromMinorUnits } from '../../money/money.ts';
import type { Balance, Payment } from '../../payout/models.ts';
import { formatDateTime } from '../clock.ts';
import type { SandboxProvider } from '../catalogue.ts';
import type { LedgerLog, LedgerState, PaymentRecord } from './ledger-log.ts';
import type { SandboxOutcome } from '../outcomes.ts';

// The ledger's shapes (its options, a payment's entry and effects, the test features'
// requests) and the small pure helpers its methods share; ledger.ts holds the ledger itself.

export interface LedgerOptions {
  balanceMinor: bigint;
  overdraftMinor: bigint;
  /** How long a READY payment waits for execute before it EXPIRES. */
  expiryMs: number;
  /** How long an IN_PROGRESS payment takes to settle on its own. */
  inProgressMs: number;
  now: () => number;
  onStatusChange: (payment: Payment) => void;
  /** A sandbox directory's state to go on from, and its log to record every change in. */
  stored?: { state: LedgerState; log: LedgerLog };
}

/**
 * Per paymentId: calls received, and how many of them took effect. A create takes
 * effect when the payment comes to exist; an execute when it moves a READY payment on
 * (to COMPLETED, IN_PROGRESS or FAILED). Calls refused, faulted before the effect or
 * repeated on a payment past READY count as calls only.
 */
export interface PaymentEffects {
  paymentId: string;
  status: string;
  createCalls: number;
  creates: number;
  executeCalls: number;
  executions: number;
  debited: string;
}

export interface MoneyTotal {
  payments: number;
  amount: string;
  commission: string;
  total: string;
}

/**
 * The balance against the payments that moved it, for fault suites: `startingBalance`
 * minus `balance` always equals `debited.total`, and `debited` is `completed` plus
 * `inProgress` (IN_PROGRESS holds its money; a later failure returns it).
 */
export interface BalanceLedger {
  currency: 'RUB';
  /** The balance the sandbox started with plus `adjustments`: all the money put in. */
  startingBalance: string;
  /** Net of the balance set or topped up at run time (a test feature); negative when lowered. */
  adjustments: string;
  balance: string;
  /** balance - startingBalance: negative once money went out. */
  change: string;
  debited: MoneyTotal;
  completed: MoneyTotal;
  inProgress: MoneyTotal;
}

export interface Entry {
  payment: Payment;
  createdAt: number;
  sequence: number;
  outcome: SandboxOutcome;
  amountMinor: bigint;
  commissionMinor: bigint;
  effects: { createCalls: number; creates: number; executeCalls: number; executions: number; debitedMinor: bigint };
  timer?: NodeJS.Timeout;
}

/** Payments made behind the gateway's back (a test feature): one record per paymentId. */
export interface SeedRequest {
  paymentIds: string[];
  amount: string;
  provider: SandboxProvider;
  fields: Record<string, string>;
  status: 'COMPLETED' | 'FAILED' | 'IN_PROGRESS' | 'READY';
  errorCode?: string;
  /** Epoch ms; now when absent. */
  createdAt?: number;
  commission?: string;
}

/** What the upstream holds for a payment, changed (a test feature); absent fields stay. */
export interface PaymentChange {
  status?: Payment['status']['value'];
  errorCode?: string;
  errorMessage?: string;
  commission?: string;
  amount?: string;
  fields?: Record<string, string>;
  /** Send the status webhook; by default it is "lost". */
  notify?: boolean;
}

export interface ListQuery {
  limit: number;
  offset: number;
  from: string;
  to: string;
}

/** Search window of the list without dates and of single reads (spec, Endpoints rules 3 and 4). */
export const SEARCH_WINDOW_DAYS = 50;

/** errorCode is a plain string: the sandbox can also send codes the spec does not list. */
export function failed(now: number, errorCode: string, errorMessage: string): Payment['status'] {
  return { value: 'FAILED', changedDateTime: formatDateTime(now), errorCode, errorMessage };
}

export function record(entry: Entry): PaymentRecord {
  const { debitedMinor, ...counts } = entry.effects;
  return {
    payment: entry.payment,
    createdAt: entry.createdAt,
    sequence: entry.sequence,
    amountMinor: entry.amountMinor.toString(),
    commissionMinor: entry.commissionMinor.toString(),
    effects: { ...counts, debitedMinor: debitedMinor.toString() },
  };
}

export function olderFirst(a: Entry, b: Entry): number {
  return a.createdAt - b.createdAt || a.sequence - b.sequence;
}

export function maxBigint(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export function clone(payment: Payment): Payment {
  return structuredClone(payment);
}

export function describeEffects(entry: Entry): PaymentEffects {
  const { debitedMinor, ...counts } = entry.effects;
  return { paymentId: entry.payment.paymentId, status: entry.payment.status.value, ...counts, debited: fromMinorUnits(debitedMinor) };
}

export class MoneySum {
  private payments = 0;
  private amountMinor = 0n;
  private commissionMinor = 0n;

  static of(...sums: MoneySum[]): MoneySum {
    const total = new MoneySum();
    for (const sum of sums) {
      total.payments += sum.payments;
      total.amountMinor += sum.amountMinor;
      total.commissionMinor += sum.commissionMinor;
    }
    return total;
  }

  add(amountMinor: bigint, commissionMinor: bigint): void {
    this.payments++;
    this.amountMinor += amountMinor;
    this.commissionMinor += commissionMinor;
  }

  describe(): MoneyTotal {
    return {
      payments: this.payments,
      amount: fromMinorUnits(this.amountMinor),
      commission: fromMinorUnits(this.commissionMinor),
      total: fromMinorUnits(this.amountMinor + this.commissionMinor),
    };
  }
}

/** The sandbox tariff: the provider's percentage, never under its minimum fee. */
export function tariffCommission(provider: SandboxProvider, amountMinor: bigint): bigint {
  return maxBigint(basisPoints(amountMinor, provider.commissionBps), provider.commissionMinMinor);
}

/** A payment the test feature `seed` puts in place as if it had been made through the API. */
export function seededPayment(
  request: SeedRequest,
  paymentId: string,
  at: { createdAt: number; expiryMs: number; amountMinor: bigint; commissionMinor: bigint },
): Payment {
  const status: Payment['status'] =
    request.status === 'FAILED'
      ? failed(at.createdAt, request.errorCode ?? 'BILLING_DECLINED', 'The recipient billing declined the payment')
      : { value: request.status, changedDateTime: formatDateTime(at.createdAt) };
  return {
    paymentId,
    creationDateTime: formatDateTime(at.createdAt),
    expirationDateTime: formatDateTime(at.createdAt + at.expiryMs),
    status,
    amount: moneyObject(at.amountMinor, 'RUB'),
    recipientDetails: { providerCode: request.provider.code, fields: { ...request.fields } },
    commission: moneyObject(at.commissionMinor, 'RUB'),
    ...(request.status === 'COMPLETED' ? { billingDetails: newBillingDetails() } : {}),
  };
}

/** The balance's ledger (test feature): what was debited, completed and still in progress, beside the balance. */
export function describeBalanceLedger(
  entries: Iterable<Entry>,
  money: { startingMinor: bigint; adjustmentsMinor: bigint; balanceMinor: bigint },
): BalanceLedger {
  const completed = new MoneySum();
  const inProgress = new MoneySum();
  for (const entry of entries) {
    if (entry.effects.debitedMinor === 0n) continue;
    const sum = entry.payment.status.value === 'COMPLETED' ? completed : inProgress;
    sum.add(entry.amountMinor, entry.commissionMinor);
  }
  return {
    currency: 'RUB',
    startingBalance: fromMinorUnits(money.startingMinor + money.adjustmentsMinor),
    adjustments: fromMinorUnits(money.adjustmentsMinor),
    balance: fromMinorUnits(money.balanceMinor),
    change: fromMinorUnits(money.balanceMinor - money.startingMinor - money.adjustmentsMinor),
    debited: MoneySum.of(completed, inProgress).describe(),
    completed: completed.describe(),
    inProgress: inProgress.describe(),
  };
}

/** What the partner reports of a completed payment: its transaction id and the card network's RRN (12 digits). */
export function newBillingDetails(): NonNullable<Payment['billingDetails']> {
  return { transactionId: randomUUID(), rrn: String(randomInt(100_000_000_000, 999_999_999_999)) };
}

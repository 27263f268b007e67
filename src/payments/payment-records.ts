import { sqlOf, type PrismaClient } from '../db/database.ts';
import { recordPaymentEnd } from './payment-outbound-events.ts';
import type { TrackedStatus } from '../db/generated/enums.ts';
import type { Prisma } from '../db/generated/client.ts';
import { backoffCeiling } from '../lib/retry.ts';
import { maskRecipientFields } from '../log/mask.ts';
import type { BillingDetails, Payment, PaymentPayload, Status } from '../payout/models.ts';
import type { PaymentEvents } from './events.ts';
import { lockPayment } from './sql/lock-payment.ts';
import type { PaymentPayee } from '../payees/payment-payees.ts';
import { recordPaidPayment } from '../payees/sql/record-paid-payment.ts';
import { compareMove, needsReadBack, paymentStates, type LocalOutcome } from './status.ts';

/**
 * Where a status was learned (PaymentStatusEvent.source, stored): the request, an answer to
 * create or execute, a read, a webhook, the read-back of an unsettled payment (read-back.ts,
 * and the batch worker's reads of IN_PROGRESS rows), or a reconciliation's repair.
 */
export const statusSources = ['request', 'create', 'execute', 'read', 'webhook', 'read-back', 'reconcile'] as const;
export type StatusSource = (typeof statusSources)[number];
export type ApplyOutcome = 'applied' | 'duplicate' | 'stale' | 'unknown-payment';

export interface PaymentIntent {
  paymentId: string;
  agentId: string;
  payload: PaymentPayload;
  requestedBy?: string;
  batchId?: string;
  batchRow?: number;
  /** A single payment's payee and its mark at create (payees/payment-payees.ts). */
  payee?: PaymentPayee;
}

/** What the upstream said about a payment: a full Payment, or a webhook's status part. */
export interface UpstreamUpdate {
  status: Status;
  billingDetails?: BillingDetails;
  payment?: Payment;
}

/** First read-back of an unsettled payment after this long, then doubling up to the cap. */
export const READ_BACK_FIRST_DELAY_MS = 5_000;
export const READ_BACK_MAX_DELAY_MS = 5 * 60_000;
/** Without jitter: one payment's reads are spread already by when each was written. */
const readBackSchedule = { baseMs: READ_BACK_FIRST_DELAY_MS, maxMs: READ_BACK_MAX_DELAY_MS };

/**
 * The one writer of the Payment and PaymentStatusEvent tables (test/payments/payment-records-owner.test.ts):
 * a payment is recorded before each upstream call and after it, from webhooks, read-backs
 * and reconciliation's repair. Changes of one payment are serialised with a row lock, and a
 * status only ever moves as status.ts allows. The batch worker's grouped statements write
 * through the CTEs of sql/record-intents.ts and sql/apply-facts.ts, which apply the same table.
 */
export class PaymentRecords {
  protected readonly agentId: string;
  protected readonly now: () => Date;
  private readonly readBackListeners = new Set<() => void>();

  constructor(
    protected readonly prisma: PrismaClient,
    protected readonly events: PaymentEvents,
    options: { agentId: string; now?: () => Date },
  ) {
    this.agentId = options.agentId;
    this.now = options.now ?? (() => new Date());
  }

  /** Records a payment as PENDING before its create call; false when it was known already. */
  async recordIntent(intent: PaymentIntent): Promise<boolean> {
    const { payload } = intent;
    const inserted = await this.prisma.payment.createMany({
      data: [
        {
          ...paymentRow(intent.paymentId, intent.agentId, payload),
          requestedBy: intent.requestedBy ?? null,
          batchId: intent.batchId ?? null,
          batchRow: intent.batchRow ?? null,
          ...(intent.payee === undefined
            ? {}
            : {
                payeeId: intent.payee.payeeId,
                accountKey: intent.payee.accountKey,
                payeeMark: intent.payee.mark,
                payeeLastPaidAt: intent.payee.lastPaidAt,
              }),
        },
      ],
      skipDuplicates: true,
    });
    if (inserted.count === 0) return false;
    await this.prisma.paymentStatusEvent.create({
      data: { paymentId: intent.paymentId, status: paymentStates.pending, source: 'request' },
    });
    return true;
  }

  /**
   * Applies a status learned from the upstream. A payment not tracked yet is recorded
   * from a full Payment (reads and executes of payments made elsewhere); a webhook for
   * an unknown payment changes nothing.
   */
  async applyUpstream(
    paymentId: string,
    update: UpstreamUpdate,
    source: StatusSource,
    options: {
      onApplied?: (tx: Prisma.TransactionClient) => Promise<void>;
      /**
       * Details the record holds already stay; only missing ones are filled. For
       * reconciliation's repair: a commission that differs there is for a person.
       */
      keepRecorded?: boolean;
    } = {},
  ): Promise<ApplyOutcome> {
    const outcome = await this.prisma.$transaction(async (tx) => {
      const current = await lockPayment(sqlOf(tx), paymentId);
      if (current === undefined) {
        if (update.payment === undefined) return 'unknown-payment' as const;
        await this.insertFromUpstream(tx, update.payment, source);
        return 'applied' as const;
      }
      const next = update.status.value as TrackedStatus;
      const move = compareMove(current.status, next);
      const details = options.keepRecorded === true ? await missingDetails(tx, paymentId, detailsFrom(update)) : detailsFrom(update);
      if (move !== 'advance') {
        // Same status again may still bring details the first report lacked.
        if (move === 'same') await tx.payment.update({ where: { paymentId }, data: details });
        return move === 'same' ? ('duplicate' as const) : ('stale' as const);
      }
      await tx.payment.update({
        where: { paymentId },
        data: {
          ...details,
          status: next,
          errorCode: update.status.errorCode ?? null,
          errorMessage: update.status.errorMessage ?? null,
          statusChangedAt: new Date(update.status.changedDateTime),
          ...this.schedule(next),
        },
      });
      await tx.paymentStatusEvent.create({
        data: {
          paymentId,
          status: next,
          errorCode: update.status.errorCode ?? null,
          errorMessage: update.status.errorMessage ?? null,
          source,
          changedAt: new Date(update.status.changedDateTime),
        },
      });
      await recordPaymentEnd(tx, paymentId, next);
      // A single payment's payee is remembered with its payment being paid, or not at all.
      if (next === paymentStates.completed) await recordPaidPayment(sqlOf(tx), paymentId);
      // Commits with the move, or not at all (the audit of a reconciliation's repair).
      await options.onApplied?.(tx);
      return 'applied' as const;
    });
    if (outcome === 'applied') this.told(paymentId, update.status.value);
    return outcome;
  }

  /** Local outcomes the upstream cannot report: refused at create, or unknown after a lost answer. */
  async markLocal(
    paymentId: string,
    status: LocalOutcome,
    error: { code: string; message: string },
    source: StatusSource,
  ): Promise<ApplyOutcome> {
    const outcome = await this.prisma.$transaction(async (tx) => {
      const current = await lockPayment(sqlOf(tx), paymentId);
      if (current === undefined) return 'unknown-payment' as const;
      const move = compareMove(current.status, status);
      if (move !== 'advance') return move === 'same' ? ('duplicate' as const) : ('stale' as const);
      await tx.payment.update({
        where: { paymentId },
        data: { status, errorCode: error.code, errorMessage: error.message, ...this.schedule(status) },
      });
      await tx.paymentStatusEvent.create({
        data: { paymentId, status, errorCode: error.code, errorMessage: error.message, source },
      });
      await recordPaymentEnd(tx, paymentId, status);
      return 'applied' as const;
    });
    if (outcome === 'applied') this.told(paymentId, status);
    return outcome;
  }

  /** Calls `listener` whenever this process moves a payment into a state that is read back (read-back.ts sets its timer). */
  onReadBackDue(listener: () => void): () => void {
    this.readBackListeners.add(listener);
    return () => this.readBackListeners.delete(listener);
  }

  private told(paymentId: string, status: TrackedStatus): void {
    this.events.publish({ paymentId, status });
    if (needsReadBack.has(status)) for (const listener of this.readBackListeners) listener();
  }

  /** Pushes the next read-back further out after one that changed nothing. */
  async postponeCheck(paymentId: string): Promise<void> {
    const row = await this.prisma.payment.findUnique({ where: { paymentId }, select: { checkAttempts: true } });
    if (row === null) return;
    const attempts = row.checkAttempts + 1;
    const delay = backoffCeiling(attempts, readBackSchedule);
    await this.prisma.payment.update({
      where: { paymentId },
      data: { checkAttempts: attempts, nextCheckAt: new Date(this.now().getTime() + delay) },
    });
  }

  private schedule(status: TrackedStatus) {
    return needsReadBack.has(status)
      ? { nextCheckAt: new Date(this.now().getTime() + READ_BACK_FIRST_DELAY_MS), checkAttempts: 0 }
      : { nextCheckAt: null };
  }

  private async insertFromUpstream(tx: Prisma.TransactionClient, payment: Payment, source: StatusSource) {
    const status = payment.status.value as TrackedStatus;
    await tx.payment.create({
      data: {
        ...paymentRow(payment.paymentId, this.agentId, payment),
        status,
        errorCode: payment.status.errorCode ?? null,
        errorMessage: payment.status.errorMessage ?? null,
        statusChangedAt: new Date(payment.status.changedDateTime),
        ...detailsFrom({ status: payment.status, payment }),
        ...this.schedule(status),
        history: {
          create: {
            status,
            errorCode: payment.status.errorCode ?? null,
            errorMessage: payment.status.errorMessage ?? null,
            source,
            changedAt: new Date(payment.status.changedDateTime),
          },
        },
      },
    });
  }
}

/** The columns a payment request and an upstream Payment share; the recipient stored masked. */
function paymentRow(
  paymentId: string,
  agentId: string,
  source: Pick<PaymentPayload, 'amount' | 'recipientDetails' | 'webhookUrl' | 'customFields'>,
) {
  return {
    paymentId,
    agentId,
    amount: source.amount.value,
    currency: source.amount.currency,
    providerCode: source.recipientDetails.providerCode,
    recipient: maskRecipientFields(source.recipientDetails.fields),
    webhookUrl: source.webhookUrl ?? null,
    customFields: source.customFields ?? undefined,
  };
}

/** Of `details`, those the (locked) record does not hold yet: read only when asked, off the pay path. */
async function missingDetails(tx: Prisma.TransactionClient, paymentId: string, details: PaymentDetails): Promise<PaymentDetails> {
  const recorded = await tx.payment.findUniqueOrThrow({
    where: { paymentId },
    select: { billingDetails: true, commission: true, upstreamCreatedAt: true, expiresAt: true },
  });
  return Object.fromEntries(Object.entries(details).filter(([key]) => recorded[key as keyof PaymentDetails] === null)) as PaymentDetails;
}

interface PaymentDetails {
  billingDetails?: BillingDetails;
  commission?: string;
  upstreamCreatedAt?: Date;
  expiresAt?: Date;
}

function detailsFrom(update: UpstreamUpdate): PaymentDetails {
  const { payment } = update;
  const billing = update.billingDetails ?? payment?.billingDetails;
  return {
    ...(billing === undefined ? {} : { billingDetails: billing }),
    ...(payment === undefined
      ? {}
      : {
          commission: payment.commission.value,
          upstreamCreatedAt: new Date(payment.creationDateTime),
          expiresAt: new Date(payment.expirationDateTime),
        }),
  };
}

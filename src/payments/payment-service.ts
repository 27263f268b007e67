import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { fromMinorUnits } from '../money/money.ts';
import { recordAudit, systemActor, type AuditActor } from '../audit/audit.ts';
import type { PayoutClient } from '../payout/client.ts';
import { PayoutApiError, PayoutError } from '../payout/errors.ts';
import type { CreateOutcome, PaymentAttempts } from './attempt.ts';
import type { Payment, PaymentPayload } from '../payout/models.ts';
import { checkPaymentAgainstProvider } from './check-payment.ts';
import { readLive } from './live-read.ts';
import { PaymentInputError } from './input-error.ts';
import { PaymentRefusedError } from './payment-refusal.ts';
import type { ProviderCatalogue } from './provider-catalogue.ts';
import { finalTracked, paymentStates } from './status.ts';
import type { PaymentTracker, TrackedPayment } from './tracker.ts';
import { amountInWords } from '../money/money-text.ts';
import { decimalText, minorUnitsOf } from '../money/money-wire.ts';
import { neededInWords, type Approvals } from '../approval/approvals.ts';
import type { PaymentPayees } from '../payees/payment-payees.ts';
import { payeeMarks, paymentAccountChangedMessage } from '../payees/payee-marks.ts';

/** A payment as the gateway shows it: the upstream's view when it has one, and its own record. */
export interface PaymentView {
  paymentId: string;
  upstream?: Payment;
  tracked?: TrackedPayment;
  /** When `upstream` was read; absent: the view is the record as it stands. */
  readAt?: Date;
  /** Why the upstream was not read (it did not answer): the view is the record alone. */
  liveReadFailure?: PayoutError;
}

export interface CreatePaymentRequest {
  paymentId?: string;
  payload: PaymentPayload;
  /** The company's id for the person paid (a valid payee id): the payment is marked against the account it was last paid to. */
  payeeId?: string;
  /** Execute right after a successful create (above the second-person threshold: create only). */
  execute: boolean;
  /** With execute: execute it even if the payee's account changed since the last payment. */
  includeChangedAccount?: boolean;
  /** The creating key's identity (GraphQL's `caller`); compared with the executor's. */
  requestedBy?: string;
  /** Who the audit names for the execute part. */
  by?: AuditActor;
}

export interface ExecuteRequest {
  /**
   * The executing key's identity (GraphQL's `caller`). Given, the second-person rule
   * applies; absent (internal callers), only the cancelled-payment rule does.
   */
  executedBy?: string;
  /** Who the audit names. */
  by?: AuditActor;
  /** Execute a payment whose payee was last paid to another account (PAYEE_ACCOUNT_CHANGED otherwise). */
  includeChangedAccount?: boolean;
}

export interface PaymentServiceDeps {
  client: PayoutClient;
  attempts: PaymentAttempts;
  tracker: PaymentTracker;
  catalogue: ProviderCatalogue;
  /** Where the upstream should send status webhooks; known once the gateway listens. */
  webhookUrl: () => string | undefined;
  logger: Logger;
  /** For the audit trail of executions (audit/audit.ts). */
  prisma: PrismaClient;
  /** Marks a payment that names its payee (payees/): new payee, known, or account changed. */
  payees: PaymentPayees;
  /**
   * PAYMENT_SECOND_PERSON_ABOVE in minor units: a payment above it is executed only by
   * a key other than the one that created it. null: off (single-user mode).
   */
  secondPersonAbove: bigint | null;
  /**
   * The approval policy's tiers for single payments (src/approval): each execute by a key
   * other than the creator's is an approval, and the payment is executed once they meet it.
   * Given, it replaces secondPersonAbove (whose rule is its default); absent: that rule.
   */
  approvals?: Approvals;
}

/**
 * Creating, executing and reading payments with tracking around every upstream call:
 * recorded before, updated after; attempt.ts settles lost answers so nothing is paid twice.
 */
export class PaymentService {
  constructor(private readonly deps: PaymentServiceDeps) {}

  async create(request: CreatePaymentRequest): Promise<PaymentView> {
    const { client, tracker, catalogue } = this.deps;
    const provider = await catalogue.get(request.payload.recipientDetails.providerCode);
    if (provider === undefined) {
      throw new PaymentInputError([
        { path: ['recipient'], message: `provider ${request.payload.recipientDetails.providerCode} is not offered` },
      ]);
    }
    const problems = checkPaymentAgainstProvider(request.payload, provider);
    if (problems.length > 0) throw new PaymentInputError(problems);

    const paymentId = request.paymentId ?? randomUUID();
    const payload: PaymentPayload = { ...request.payload, webhookUrl: request.payload.webhookUrl ?? this.deps.webhookUrl() };
    if (payload.webhookUrl === undefined) delete payload.webhookUrl;
    const { recipientDetails } = request.payload;
    const payee =
      request.payeeId === undefined
        ? undefined
        : await this.deps.payees.mark(request.payeeId, recipientDetails.providerCode, recipientDetails.fields);
    await tracker.recordIntent({ paymentId, agentId: client.agentId, payload, requestedBy: request.requestedBy, payee });

    const outcome = await this.deps.attempts.create(paymentId, payload);
    if (outcome.kind === 'ready' && request.execute) {
      await tracker.applyUpstream(paymentId, { status: outcome.payment.status, payment: outcome.payment }, 'create');
      // One step is one person: above the threshold the create stands and a second key executes.
      return this.execute(paymentId, {
        executedBy: request.requestedBy,
        by: request.by,
        includeChangedAccount: request.includeChangedAccount,
      });
    }
    return this.settle(paymentId, outcome, 'create');
  }

  /**
   * Executes once; a payment already final is returned as it is, without a call. Refused
   * before any upstream call (PaymentRefusedError): a payment whose batch row was cancelled;
   * above the second-person threshold, one the executing key created itself; one whose
   * payee's account changed, unless the executor includes it. A refusal for a changed
   * account comes before the policy's: an execute that does not include it approves nothing.
   */
  async execute(paymentId: string, request: ExecuteRequest = {}): Promise<PaymentView> {
    const tracked = await this.deps.tracker.find(paymentId);
    if (tracked !== null && finalTracked.has(tracked.status)) return { paymentId, tracked };
    const refusal =
      (await this.refusal(paymentId, tracked, request.executedBy)) ??
      changedAccountRefusal(paymentId, tracked, request) ??
      (await this.policyRefusal(paymentId, tracked, request));
    const detail = {
      amount: tracked === null ? null : decimalText(tracked.amount),
      currency: tracked?.currency ?? null,
      createdBy: tracked?.requestedBy ?? null,
      refused: refusal?.code ?? null,
      ...(tracked?.payeeId == null
        ? {}
        : { payee: tracked.payeeId, payeeMark: tracked.payeeMark, includeChangedAccount: request.includeChangedAccount ?? false }),
    };
    // Written before the call: an execute that reaches the upstream is on the trail even if this process dies.
    await recordAudit(this.deps.prisma, request.by ?? systemActor, { action: 'payment.execute', paymentId, detail });
    if (refusal !== undefined) throw refusal;
    return this.settle(paymentId, await this.deps.attempts.execute(paymentId), 'execute');
  }

  private async refusal(
    paymentId: string,
    tracked: TrackedPayment | null,
    executedBy: string | undefined,
  ): Promise<PaymentRefusedError | undefined> {
    const row = await this.deps.tracker.cancelledBatchRow(paymentId);
    if (row !== null) {
      const expiry = tracked?.expiresAt == null ? 'it expires there' : `it expires there at ${tracked.expiresAt.toISOString()}`;
      return new PaymentRefusedError(
        'PAYMENT_CANCELLED',
        `payment ${paymentId} is line ${row.line} of batch ${row.batchId}, which was cancelled: it was created upstream and is not executed; ${expiry}`,
        paymentId,
      );
    }
    const threshold = this.deps.secondPersonAbove;
    if (this.deps.approvals !== undefined) return undefined;
    if (threshold === null || executedBy === undefined || tracked === null || tracked.requestedBy === null) return undefined;
    if (tracked.requestedBy !== executedBy || minorUnitsOf(tracked.amount) <= threshold) return undefined;
    return new PaymentRefusedError(
      'SECOND_PERSON_REQUIRED',
      `payment ${paymentId} (${decimalText(tracked.amount)} ${tracked.currency}) is READY and not executed: above ${fromMinorUnits(threshold)} ${tracked.currency} it must be executed by a key other than the one that created it`,
      paymentId,
    );
  }

  /** Above the policy's tiers for single payments: the executing key's approval is recorded, and the payment waits until enough keys other than the creator's executed it. */
  private async policyRefusal(
    paymentId: string,
    tracked: TrackedPayment | null,
    request: ExecuteRequest,
  ): Promise<PaymentRefusedError | undefined> {
    const approvals = this.deps.approvals;
    if (approvals === undefined || request.executedBy === undefined || tracked === null || tracked.requestedBy === null) return undefined;
    const amount = decimalText(tracked.amount);
    const state = await approvals.approvePayment(
      this.deps.prisma,
      {
        paymentId,
        amount,
        currency: tracked.currency,
        createdBy: tracked.requestedBy,
        changedAccount: tracked.payeeMark === payeeMarks.ACCOUNT_CHANGED,
      },
      { actor: request.executedBy, role: request.by?.role ?? null },
      new Date(),
    );
    if (state.met) return undefined;
    const given =
      state.approvals.length === 0
        ? 'no key other than the creator’s has executed it yet'
        : `${state.approvals.length} of ${state.required.count} approvals so far`;
    return new PaymentRefusedError(
      'SECOND_PERSON_REQUIRED',
      `payment ${paymentId} (${amountInWords(amount, tracked.currency)}) is READY and not executed: the approval policy needs ${state.required.count} ${state.required.count === 1 ? 'key' : 'keys'} other than the one that created it to execute it; ` +
        `${given}: it needs ${neededInWords(state)}`,
      paymentId,
    );
  }

  /**
   * The upstream's current view merged with the local record; the read also updates the
   * record. Null when neither knows the payment. A partner that does not answer (down,
   * throttling, failing, the breaker open) does not fail the read of a payment the gateway
   * has a record of: the record is shown, with why it is not live (`liveReadFailure`). A
   * payment with no record still needs the partner, and its error stands.
   */
  async read(paymentId: string): Promise<PaymentView | null> {
    const readAt = new Date();
    const recorded = (await this.deps.tracker.find(paymentId)) ?? undefined;
    // With a record to answer from, the partner gets about a second (live-read.ts).
    const live = await readLive(this.deps.client, paymentId, recorded !== undefined);
    if ('failure' in live) {
      if (recorded === undefined) throw live.failure;
      return { paymentId, tracked: recorded, liveReadFailure: live.failure };
    }
    if ('notFound' in live) return recorded === undefined ? null : { paymentId, tracked: recorded, readAt };
    await this.deps.tracker.applyUpstream(paymentId, { status: live.upstream.status, payment: live.upstream }, 'read');
    return { paymentId, upstream: live.upstream, tracked: (await this.deps.tracker.find(paymentId)) ?? undefined, readAt };
  }

  /** One read-back of a payment whose outcome is not settled yet (IN_PROGRESS or UNKNOWN). */
  async readBack(paymentId: string): Promise<void> {
    try {
      const upstream = await this.deps.client.getPayment(paymentId);
      const outcome = await this.deps.tracker.applyUpstream(paymentId, { status: upstream.status, payment: upstream }, 'read-back');
      if (outcome !== 'applied') await this.deps.tracker.postponeCheck(paymentId);
    } catch (error) {
      this.deps.logger.warn({ paymentId, code: (error as PayoutError).code }, 'read-back failed');
      await this.deps.tracker.postponeCheck(paymentId);
    }
  }

  private async view(paymentId: string, upstream: Payment): Promise<PaymentView> {
    return { paymentId, upstream, tracked: (await this.deps.tracker.find(paymentId)) ?? undefined, readAt: new Date() };
  }

  /** Records what an attempt proved; anything short of a payment becomes a typed error. */
  private async settle(paymentId: string, outcome: CreateOutcome, source: 'create' | 'execute'): Promise<PaymentView> {
    const { tracker } = this.deps;
    switch (outcome.kind) {
      case 'ready':
      case 'paid':
      case 'in-progress':
      case 'failed':
        await tracker.applyUpstream(paymentId, { status: outcome.payment.status, payment: outcome.payment }, source);
        return this.view(paymentId, outcome.payment);
      case 'not-paid':
        // Refused or absent at create: nothing exists upstream under this id (the table in
        // status.ts keeps an UNKNOWN payment from being called REJECTED).
        if (source === 'create')
          await tracker.markLocal(paymentId, paymentStates.rejected, { code: outcome.error.code, message: outcome.error.message }, source);
        throw outcome.error;
      case 'unknown':
        await tracker.markLocal(paymentId, paymentStates.unknown, { code: outcome.error.code, message: outcome.error.message }, source);
        throw outcome.error;
      case 'unreachable':
        // Nothing was sent: a create leaves nothing upstream, an execute leaves the payment READY.
        if (source === 'create')
          await tracker.markLocal(paymentId, paymentStates.rejected, { code: outcome.error.code, message: outcome.error.message }, source);
        throw outcome.error;
    }
  }
}

/** A payment whose payee was last paid to another account, executed without the executor including it. */
function changedAccountRefusal(
  paymentId: string,
  tracked: TrackedPayment | null,
  request: ExecuteRequest,
): PaymentRefusedError | undefined {
  if (tracked === null || tracked.payeeMark !== payeeMarks.ACCOUNT_CHANGED || request.includeChangedAccount === true) return undefined;
  // Written with the mark (payment-records.ts recordIntent); were they missing, the words fail and nothing is executed.
  return new PaymentRefusedError(
    'PAYEE_ACCOUNT_CHANGED',
    paymentAccountChangedMessage(paymentId, tracked.payeeId!, tracked.payeeLastPaidAt!),
    paymentId,
  );
}

/**
 * The partner did not answer about this payment (no connection, a timeout, 429, 5xx, an
 * unreadable answer, the breaker open): it says nothing of the payment. A 4xx Error object
 * is an answer and stays an error.
 */
function noAnswer(error: unknown): error is PayoutError {
  return error instanceof PayoutError && error.retryable;
}

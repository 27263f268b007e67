import { UnknownDataKeyError } from '../../crypto/envelope.ts';
import type { Logger } from '../../log/logger.ts';
import { moneyObject } from '../../money/money-wire.ts';
import { PaymentStillReadyError } from '../../payout/errors.ts';
import type { Payment, PaymentPayload } from '../../payout/models.ts';
import type { PaymentAttempts, SendOutcome } from '../../payments/attempt.ts';
import type { CardDataVault } from '../card-data.ts';
import { paymentIdFor } from '../ids.ts';
import { payingStates } from '../states/batch-states.ts';
import {
  changeAfter,
  createdNotExecuted,
  neverCreated,
  holdForReview,
  rowStates,
  sendsSpent,
  startExecuting,
  type RetryPolicy,
  type RowChange,
  type Stage,
} from '../states/row-states.ts';
import type { CallSlots } from './call-slots.ts';
import type { HeldRow, RowWrites } from './row-writes.ts';

export interface RowPayerDeps {
  attempts: PaymentAttempts;
  webhookUrl: () => string | undefined;
  /** Opens the sealed recipient of a row right before its create is signed and sent. */
  cardData: CardDataVault;
  logger: Logger;
}

/** A row sealed under a key this worker lacks waits this long for one that has it (or a restart with it). */
const UNKNOWN_KEY_DELAY_MS = 60_000;

/**
 * A 429 ends the attempt at once: the row rests (its slot and lease free for others, no
 * retry spent) until Retry-After, and the breaker hears of it (docs/decisions/0025-throttle-a-throttled-row-rests.md).
 */
const REST = 'rest';

/** A row whose sealed recipient could not be opened: no create is sent. */
interface Unreadable {
  kind: 'unreadable';
  error: Error;
}

/**
 * One claimed row from the state it was claimed in to its next resting state: each upstream
 * call (payments/attempt.ts) in a call slot, its state written durably before the call, and
 * the outcome turned into the row's next state by states/row-states.ts.
 */
export class RowPayer {
  constructor(
    private readonly deps: RowPayerDeps,
    private readonly policy: RetryPolicy,
    private readonly slots: CallSlots,
    private readonly writes: RowWrites,
  ) {}

  async pay(row: HeldRow): Promise<void> {
    const call = row.call;
    const before = row.status;
    // A batch that no longer pays (cancelled while this row was being created or executed):
    // the row is read back and settled, never sent (decision 0027).
    const sends = payingStates.includes(row.batchStatus);
    let stage: Stage;
    let outcome: SendOutcome;
    switch (row.status) {
      case rowStates.pending:
      case rowStates.creating: {
        // A row put back to wait as (or after) its batch was cancelled: never sent, and it ends so.
        if (!sends && row.status === rowStates.pending) {
          await this.writes.move(row, neverCreated(row.retries), false);
          return;
        }
        if (row.status === rowStates.pending && row.attempt > 1 && !(await this.previousAttemptNotPaid(row))) return;
        const readOnly = row.status === rowStates.creating && (!sends || sendsSpent(row.retries, this.policy));
        // CREATING is written inside the call's slot: a row still waiting for one stays
        // PENDING, so a cancel that comes meanwhile ends it without a create.
        const created = await this.slots.call(row, async (): Promise<SendOutcome | Unreadable | null> => {
          // Opened here, in the call's slot: the full recipient lives only as long as this call.
          let payload: PaymentPayload;
          try {
            payload = this.payloadOf(row);
          } catch (error) {
            return { kind: 'unreadable', error: error as Error };
          }
          if (readOnly) return this.deps.attempts.readBackCreate(row.paymentId, payload, call);
          if (!(await this.writes.beginCreate(row))) return null;
          row.status = rowStates.creating;
          return this.deps.attempts.create(row.paymentId, payload, call, REST);
        });
        if (created === null) return;
        if (created.kind === 'unreadable') return this.unreadable(row, created.error);
        // Nothing upstream under its paymentId, in a batch that sends no more: never sent (its cancel's words).
        if (!sends && created.kind === 'not-paid' && created.proof === 'absent') {
          await this.writes.move(row, neverCreated(row.retries), false);
          return;
        }
        outcome = created;
        if (outcome.kind === 'ready') {
          const executed = await this.execute(row, outcome.payment, 0);
          if (executed === null) return;
          outcome = executed;
          stage = 'execute';
        } else stage = 'create';
        break;
      }
      case rowStates.ready: {
        // The execute step's count goes on across READY ⇄ EXECUTING: its sends stay bounded.
        const executed = await this.execute(row, null, row.retries);
        if (executed === null) return;
        outcome = executed;
        stage = 'execute';
        break;
      }
      case rowStates.executing:
        // Sends spent, or a batch that no longer pays: only read. READY then is no proof that
        // nothing will land (an execute sent earlier may still): while the batch pays, the row
        // stays EXECUTING and is read again until the payment leaves READY; in a cancelled
        // batch it ends as created, not executed (its write of READY, sql/move-items.ts).
        if (!sends || sendsSpent(row.retries, this.policy)) {
          outcome = await this.slots.call(row, () => this.deps.attempts.read(row.paymentId, undefined, call));
          if (!sends && outcome.kind === 'ready') {
            await this.writes.move(row, createdNotExecuted(outcome.payment, row.retries), false);
            return;
          }
        } else outcome = await this.slots.call(row, () => this.deps.attempts.resumeExecute(row.paymentId, call, REST));
        stage = 'execute';
        break;
      case rowStates.inProgress:
        outcome = await this.slots.call(row, () => this.deps.attempts.read(row.paymentId, undefined, call));
        stage = 'read';
        break;
    }
    await this.writes.move(row, changeAfter(stage, outcome, row.retries, this.policy, before), false);
  }

  /**
   * A retried row (attempt > 1) is paid under a new paymentId only once the previous one is
   * proven unpaid: FAILED or EXPIRED, or unknown to the upstream (never created). READY is
   * no proof: an execute sent before may still land, so the row waits (PENDING, no retry
   * spent) until that payment leaves READY. A late webhook or answer may have completed it
   * since it was marked failed: then the row is held for a person. An upstream that cannot
   * be asked leaves the row PENDING for later, with no retry spent.
   */
  private async previousAttemptNotPaid(row: HeldRow): Promise<boolean> {
    const previousId = paymentIdFor(row.batchId, row.line, row.attempt - 1);
    const read = await this.slots.call(row, () => this.deps.attempts.read(previousId, undefined, row.call));
    switch (read.kind) {
      case 'failed':
      case 'not-paid':
        return true;
      case 'ready':
      case 'unreachable':
      case 'unknown': {
        const error = read.kind === 'ready' ? new PaymentStillReadyError(previousId) : read.error;
        const wait = changeAfter('create', { kind: 'unreachable', error }, row.retries, this.policy, rowStates.pending);
        // A READY payment may stay so until it expires upstream: read it at the slowest retry pace.
        await this.writes.move(row, read.kind === 'ready' ? { ...wait, delayMs: this.policy.delay(this.policy.maxRetries) } : wait, false);
        return false;
      }
      case 'paid':
      case 'in-progress':
        await this.writes.move(
          row,
          holdForReview(
            'batch.previous-attempt',
            `the previous attempt ${previousId} is now ${read.payment.status.value}; not paid again`,
            row.retries,
          ),
          false,
        );
        return false;
    }
  }

  /**
   * A row whose card data cannot be opened is never sent. A key this worker lacks is a
   * configuration matter: the row waits (another worker, or this one restarted with the key,
   * pays it). Data that is gone or does not authenticate ends the row: FAILED before any
   * create, NEEDS_REVIEW once a create may have been sent.
   */
  private async unreadable(row: HeldRow, error: Error): Promise<void> {
    const code = (error as { code?: string }).code ?? 'card-data.unreadable';
    if (error instanceof UnknownDataKeyError) {
      this.deps.logger.error(
        { paymentId: row.paymentId, kid: error.kid, code },
        'batch row sealed under a data key this worker does not have; waiting',
      );
      await this.writes.move(
        row,
        {
          to: row.status,
          errorCode: code,
          errorMessage: error.message,
          payment: null,
          localPayment: null,
          retries: row.retries,
          delayMs: UNKNOWN_KEY_DELAY_MS,
          finished: false,
        },
        false,
      );
      return;
    }
    this.deps.logger.error({ paymentId: row.paymentId, code }, 'batch row card data cannot be read; not paid');
    const change: RowChange =
      row.status === rowStates.pending
        ? {
            to: rowStates.failed,
            errorCode: code,
            errorMessage: error.message,
            payment: null,
            localPayment: null,
            retries: row.retries,
            delayMs: null,
            finished: true,
          }
        : holdForReview(code, `${error.message}; a create may have been sent, so it is not sent again`, row.retries);
    await this.writes.move(row, change, false);
  }

  /**
   * EXECUTING written inside the call's slot, right before the execute (as CREATING is before
   * the create): a row still waiting for a slot stays READY, which a cancel ends. Null when
   * the write found the row cancelled or lost.
   */
  private execute(row: HeldRow, payment: Payment | null, retries: number): Promise<SendOutcome | null> {
    return this.slots.call(row, async () =>
      (await this.startExecuting(row, payment, retries)) ? this.deps.attempts.execute(row.paymentId, row.call, REST) : null,
    );
  }

  /** READY (or just created) → EXECUTING, durable before execute; false if cancelled or lost. */
  private async startExecuting(row: HeldRow, payment: Payment | null, retries: number): Promise<boolean> {
    return (await this.writes.move(row, startExecuting(payment, retries), true)) === rowStates.executing;
  }

  private payloadOf(row: HeldRow): PaymentPayload {
    const webhookUrl = this.deps.webhookUrl();
    return {
      amount: moneyObject(row.amount, row.currency as 'RUB'),
      recipientDetails: {
        providerCode: row.providerCode as PaymentPayload['recipientDetails']['providerCode'],
        fields: this.deps.cardData.open(row.fields, row),
      },
      ...(webhookUrl === undefined ? {} : { webhookUrl }),
      ...(row.customFields === null ? {} : { customFields: row.customFields }),
    };
  }
}

import type { SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { backoffDelay, sleep } from '../../lib/retry.ts';
import type { PaymentEvents } from '../../payments/events.ts';
import type { CallOptions } from '../../payout/call-hooks.ts';
import { READ_BACK_FIRST_DELAY_MS } from '../../payments/payment-records.ts';
import { maskedRecipient } from '../card-data.ts';
import { redactCardNumbers } from '../../log/card-numbers.ts';
import type { BatchEvents } from '../events/batch-events.ts';
import { finishBatches } from '../lifecycle/sql/finish-batches.ts';
import { rowStates, unfundedCodes, type RowChange } from '../states/row-states.ts';
import { beginCreate, type CreateIntent } from '../rows/sql/begin-create.ts';
import type { ClaimedItem } from '../rows/sql/claim-items.ts';
import { moveItems, type ItemMove, type MoveResult, type PaymentFact } from '../rows/sql/move-items.ts';
import { scrubCardData } from '../rows/sql/scrub-card-data.ts';
import { GroupCommit } from './group-commit.ts';
import { pauseForFunds } from '../funds/sql/pause-for-funds.ts';
import { FUNDS_FIRST_CHECK_MS } from '../funds/funds-check.ts';

/** A claimed row while this worker pays it. */
export interface HeldRow extends ClaimedItem {
  readonly lost: AbortController;
  /** performance.now() and Date.now() by which its lease ends here (send-fence.ts); moved on by each renewal. */
  leaseEndsAt: number;
  leaseEndsAtWall: number;
  /** What its upstream calls carry: the lost signal and the row's send fence. */
  readonly call: CallOptions;
}

export interface RowWriteDeps {
  query: SqlQuery;
  agentId: string;
  paymentEvents: PaymentEvents;
  batchEvents: BatchEvents;
  webhookUrl: () => string | undefined;
  logger: Logger;
}

/** Failed writes of one row's state are tried this often before the row is left to its lease. */
const WRITE_TRIES = 4;
const writeRetryBackoff = { baseMs: 200, maxMs: 200 * 2 ** WRITE_TRIES };

/**
 * A worker's writes of its rows' states, in groups (group-commit.ts: one statement for every
 * row that reached the same step meanwhile), each fenced by the row's lease token. A row
 * whose write finds it changed elsewhere is let go at once (its `lost` signal aborts).
 */
export class RowWrites {
  private readonly begins: GroupCommit<CreateIntent, boolean>;
  private readonly moves: GroupCommit<ItemMove, MoveResult>;
  private readonly finishes: GroupCommit<string, undefined>;

  constructor(
    private readonly deps: RowWriteDeps,
    /** Work the worker waits for before it stops: the batch finishes started here join it. */
    private readonly tasks: Set<Promise<void>>,
    /** Wakes the worker's loop: a batch ended, or a row came to rest. */
    private readonly notify: () => void,
    /**
     * Whether this worker still holds a row of the batch besides `except` (rows of the group
     * just written): that row is active, so the batch cannot end now, and its own release
     * asks again. Without it, every row's release asked (on PGlite 10 ms a row, 44 % of a
     * row's cost in bench:pay's profile, issue 41).
     */
    private readonly holdsOther: (batchId: string, except: ReadonlySet<string>) => boolean = () => false,
  ) {
    this.begins = new GroupCommit((intents) => beginCreate(deps.query, deps.agentId, intents));
    this.moves = new GroupCommit((moves) => this.writeMoves(moves));
    this.finishes = new GroupCommit(async (batchIds) => {
      const ended = await finishBatches(deps.query, [...new Set(batchIds)]);
      if (ended.length > 0) await scrubCardData(deps.query, { batchIds: ended, retentionDays: null });
      for (const batchId of ended) deps.batchEvents.publish(batchId);
      this.notify();
      return batchIds.map(() => undefined);
    });
  }

  /** PENDING → CREATING with the payment recorded, durable before the create; false when the row is lost. */
  async beginCreate(row: HeldRow): Promise<boolean> {
    return (
      (await this.write(
        row,
        () => this.begins.push(this.intentOf(row)),
        (moved) => !moved,
      )) !== false
    );
  }

  /** Writes the row's next state; returns it, or null when the row is no longer this worker's. */
  async move(row: HeldRow, change: RowChange, keepLease: boolean): Promise<string | null> {
    const result = await this.write(
      row,
      () => this.moves.push(this.moveOf(row, change, keepLease)),
      (moved) => moved.status === null,
    );
    if (result === false || result.status === null) return null;
    row.status = result.status as HeldRow['status'];
    row.retries = change.retries;
    return result.status;
  }

  /** A write of this row's state, tried again on database errors; false when the row is lost. */
  private async write<T>(row: HeldRow, send: () => Promise<T>, lost: (result: T) => boolean): Promise<T | false> {
    for (let tries = 1; ; tries++) {
      if (row.lost.signal.aborted) return false;
      try {
        const result = await send();
        if (lost(result)) {
          row.lost.abort(new Error('the row was taken over or cancelled'));
          this.deps.logger.info({ paymentId: row.paymentId }, 'batch row changed elsewhere (taken over or cancelled); leaving it');
          return false;
        }
        return result;
      } catch (error) {
        if (tries >= WRITE_TRIES) {
          // The state written before the call is durable: whoever claims the row next resumes from it.
          row.lost.abort(error);
          this.deps.logger.error({ err: error, paymentId: row.paymentId }, 'could not record a batch row; it resumes when its lease ends');
          return false;
        }
        await sleep(backoffDelay(tries, writeRetryBackoff));
      }
    }
  }

  private async writeMoves(moves: ItemMove[]): Promise<MoveResult[]> {
    const results = await moveItems(this.deps.query, moves);
    // Before any finish: a batch whose rows fail for lack of funds waits for money, it does not end.
    const unfunded = new Set<string>();
    results.forEach((result, index) => {
      const move = moves[index]!;
      if (
        result.batchId !== null &&
        result.status === move.to &&
        move.finished &&
        move.errorCode !== null &&
        unfundedCodes.includes(move.errorCode)
      ) {
        unfunded.add(result.batchId);
      }
    });
    if (unfunded.size > 0) {
      const paused = await pauseForFunds(this.deps.query, [...unfunded], FUNDS_FIRST_CHECK_MS);
      if (paused.length > 0)
        this.deps.logger.warn(
          { batchIds: paused },
          'batch paused: the partner answered INSUFFICIENT_FUNDS; it resumes once the balance covers the rest',
        );
    }
    const touched = new Set<string>();
    const ended = new Set<string>();
    const released = new Set<string>();
    results.forEach((result, index) => {
      const move = moves[index]!;
      if (result.paymentStatus !== null && move.payment !== null) {
        this.deps.paymentEvents.publish({ paymentId: move.payment.paymentId, status: result.paymentStatus });
      }
      if (result.batchId === null) return;
      touched.add(result.batchId);
      if (move.release) {
        ended.add(result.batchId);
        released.add(move.id);
      }
    });
    // Once per group, not per row, and off the rows' path: only a group with rows that came
    // to rest can end a batch, and only when this worker holds no other row of it (that row's
    // release asks again). A failure here, or a row lost without a release, is caught up by
    // the sweep the worker runs as soon as its work ends.
    for (const batchId of ended) {
      if (this.holdsOther(batchId, released)) continue;
      const finishing = this.finishes
        .push(batchId)
        .catch((error: unknown) => this.deps.logger.warn({ err: error, batchId }, 'could not end a batch yet; the sweep will'))
        .finally(() => this.tasks.delete(finishing));
      this.tasks.add(finishing);
    }
    for (const batchId of touched) this.deps.batchEvents.publish(batchId);
    return results;
  }

  private intentOf(row: HeldRow): CreateIntent {
    const webhookUrl = this.deps.webhookUrl();
    return {
      id: row.id,
      leaseToken: row.leaseToken,
      paymentId: row.paymentId,
      amount: row.amount,
      currency: row.currency,
      providerCode: row.providerCode,
      recipient: maskedRecipient(row.fields),
      webhookUrl: webhookUrl ?? null,
      customFields: row.customFields,
      batchId: row.batchId,
      line: row.line,
    };
  }

  private moveOf(row: HeldRow, change: RowChange, keepLease: boolean): ItemMove {
    return {
      id: row.id,
      leaseToken: row.leaseToken,
      from: row.status,
      to: change.to,
      onlyIfRunning: keepLease,
      errorCode: change.errorCode,
      errorMessage: safeMessage(change.errorMessage),
      billingDetails: change.payment?.billingDetails ?? null,
      retries: change.retries,
      delayMs: change.delayMs,
      finished: change.finished,
      release: !keepLease,
      payment: this.factOf(row, change),
    };
  }

  /** What the row's change says about its payment record. */
  private factOf(row: HeldRow, change: RowChange): PaymentFact | null {
    const source = row.status === rowStates.inProgress ? 'read-back' : row.status === rowStates.creating ? 'create' : 'execute';
    const base = { paymentId: row.paymentId, source, checkInMs: READ_BACK_FIRST_DELAY_MS };
    const { payment } = change;
    if (payment !== null) {
      return {
        ...base,
        status: payment.status.value,
        errorCode: payment.status.errorCode ?? null,
        errorMessage: safeMessage(payment.status.errorMessage ?? null),
        changedAt: payment.status.changedDateTime,
        commission: payment.commission.value,
        upstreamCreatedAt: payment.creationDateTime,
        expiresAt: payment.expirationDateTime,
        billingDetails: payment.billingDetails ?? null,
      };
    }
    if (change.localPayment === null) return null;
    return {
      ...base,
      status: change.localPayment,
      errorCode: change.errorCode,
      errorMessage: safeMessage(change.errorMessage),
      changedAt: null,
      commission: null,
      upstreamCreatedAt: null,
      expiresAt: null,
      billingDetails: null,
    };
  }
}

/** Upstream words are stored and shown to many: a card number an upstream message might echo is masked. */
function safeMessage(message: string | null): string | null {
  return message === null ? null : redactCardNumbers(message);
}

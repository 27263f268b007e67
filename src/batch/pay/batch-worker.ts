import { randomBytes, randomUUID } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { sleep } from '../../payout/backoff.ts';
import type { PayoutClient } from '../../payout/client.ts';
import type { Payment, PaymentPayload } from '../../payout/models.ts';
import type { CreateOutcome, Outcome, PaymentAttempts } from '../../payments/attempt.ts';
import { PaymentStillReadyError } from '../../payout/errors.ts';
import type { PaymentEvents } from '../../payments/events.ts';
import { READ_BACK_FIRST_DELAY_MS } from '../../payments/payment-records.ts';
import { paymentIdFor } from '../ids.ts';
import type { BatchEvents } from '../lifecycle/batch-events.ts';
import { maskedRecipient, type CardDataVault } from '../card-data.ts';
import { redactCardNumbers } from '../import/read/cell-text.ts';
import { UnknownDataKeyError } from '../../crypto/envelope.ts';
import { GroupCommit } from './group-commit.ts';
import type { FundsCheck } from './funds-check.ts';
import { pauseForFunds, resumeFunded, stillShort, takeFundsChecks } from './sql/funds.ts';
import type { PartnerBreaker } from '../../partner/partner-breaker.ts';
import { changeAfter, holdForReview, sendsSpent, startExecuting, unfundedCodes, type RetryPolicy, type RowChange, type Stage } from '../rows/row-states.ts';
import { RateLimiter } from './rate-limiter.ts';
import { beginCreate, type CreateIntent } from '../rows/sql/begin-create.ts';
import { claimItems, type ClaimedItem } from '../rows/sql/claim-items.ts';
import { finishBatches } from '../lifecycle/sql/finish-batches.ts';
import { moveItems, type ItemMove, type MoveResult, type PaymentFact } from '../rows/sql/move-items.ts';
import { renewLeases } from '../rows/sql/renew-leases.ts';
import { DEFAULT_IMPORT_STALE_MS, rejectStaleImports } from '../lifecycle/sql/reject-stale-imports.ts';
import { protectLegacyRows } from '../rows/sql/protect-legacy-rows.ts';
import { scrubCardData } from '../rows/sql/scrub-card-data.ts';
import { settleFromPayments } from '../rows/sql/settle-from-payments.ts';

export interface WorkerOptions {
  /** Upstream calls in flight at once, over all batches. */
  concurrency: number;
  /** Upstream calls in flight at once within one batch (at most `concurrency`). */
  perBatchConcurrency: number;
  /** Upstream calls per second at most; 0 for no cap. */
  ratePerSecond: number;
  /** How long a claim holds without a heartbeat; a dead worker's rows are taken over after this. */
  leaseMs: number;
  /** Wait between looks for work when there is none. */
  pollMs: number;
  /** Retries of a row whose attempt proved nothing (or failed transiently) before it ends. */
  maxRetries: number;
  /** First retry delay; doubles with each retry, with jitter. */
  retryBaseMs: number;
  /** An import still VALIDATING this long after its last heartbeat has lost its process (see reject-stale-imports.ts). */
  importStaleMs: number;
}

export const defaultWorkerOptions: WorkerOptions = {
  concurrency: 8,
  perBatchConcurrency: 8,
  ratePerSecond: 0,
  leaseMs: 60_000,
  pollMs: 500,
  maxRetries: 5,
  retryBaseMs: 1_000,
  importStaleMs: DEFAULT_IMPORT_STALE_MS,
};

export interface WorkerDeps {
  /** The database's raw SQL (Database.query): the worker's statements are all hand-written. */
  query: SqlQuery;
  client: PayoutClient;
  attempts: PaymentAttempts;
  paymentEvents: PaymentEvents;
  batchEvents: BatchEvents;
  webhookUrl: () => string | undefined;
  /** Opens the sealed recipient of a row right before its create is signed and sent. */
  cardData: CardDataVault;
  logger: Logger;
  /** Told how long each claimed row waited to be claimed (ops/metrics.ts). */
  claims?: { onClaim(waitedMs: readonly number[]): void };
  /** The balance against what batches need (funds-check.ts): resumes batches paused for funds. */
  funds?: FundsCheck;
  /** The partner breaker (partner/partner-breaker.ts): while it is open nothing is claimed. */
  breaker?: Pick<PartnerBreaker, 'isOpen' | 'refresh' | 'onChange'>;
}

const IN_PROGRESS_FIRST_CHECK_MS = 2_000;
/** A row read back for as long as the partner cannot settle it is read at least this often. */
const MAX_RETRY_DELAY_MS = 60_000;
const IN_PROGRESS_MAX_CHECK_MS = 60_000;
/** Failed writes of one row's state are tried this often before the row is left to its lease. */
const WRITE_TRIES = 4;
/** A batch paused for funds has its balance read this soon first, then less often (up to a minute). */
const FUNDS_FIRST_CHECK_MS = 2_000;
const FUNDS_MAX_CHECK_MS = 60_000;
/** How often this worker looks for batches whose balance check is due. */
const FUNDS_LOOK_MS = 1_000;
/** A row sealed under a key this worker lacks waits this long for one that has it (or a restart with it). */
const UNKNOWN_KEY_DELAY_MS = 60_000;

/** A claimed row while this worker pays it. */
interface Held extends ClaimedItem {
  readonly lost: AbortController;
}

/**
 * Pays batch rows: a claim loop around payments/attempt.ts. Rows are claimed in groups
 * (one statement), their state changes are written in groups (group-commit.ts: one
 * statement for every row that reached the same step meanwhile), and each write is fenced
 * by the lease token. A heartbeat keeps the leases of rows in flight; a row whose lease is
 * gone is abandoned at once, with no further upstream call. Database errors never end the
 * worker: the loop backs off and goes on, and a row whose write failed is left to its lease.
 */
export class BatchWorker {
  readonly owner = `worker-${randomBytes(4).toString('hex')}`;
  private readonly options: WorkerOptions;
  private readonly calls: LimitFunction;
  private readonly perBatch = new Map<string, LimitFunction>();
  private readonly rate: RateLimiter;
  private readonly held = new Map<string, Held>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly policy: RetryPolicy;
  private readonly begins: GroupCommit<CreateIntent, boolean>;
  private readonly moves: GroupCommit<ItemMove, MoveResult>;
  private readonly finishes: GroupCommit<string, undefined>;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopping = false;
  private wake: () => void = () => {};
  private unwatchBreaker: (() => void) | undefined;
  private fundsLookedAt = 0;

  constructor(
    private readonly deps: WorkerDeps,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...defaultWorkerOptions, ...options };
    this.calls = pLimit(this.options.concurrency);
    this.rate = new RateLimiter(this.options.ratePerSecond);
    this.policy = {
      maxRetries: this.options.maxRetries,
      delay: (retry) => jittered(Math.min(MAX_RETRY_DELAY_MS, this.options.retryBaseMs * 2 ** retry)),
      inProgressDelay: (check) => Math.min(IN_PROGRESS_MAX_CHECK_MS, IN_PROGRESS_FIRST_CHECK_MS * 2 ** check),
    };
    this.begins = new GroupCommit((intents) => beginCreate(deps.query, deps.client.agentId, intents));
    this.moves = new GroupCommit((moves) => this.writeMoves(moves));
    this.finishes = new GroupCommit(async (batchIds) => {
      const ended = await finishBatches(deps.query, [...new Set(batchIds)]);
      if (ended.length > 0) await scrubCardData(deps.query, { batchIds: ended, retentionDays: null });
      for (const batchId of ended) deps.batchEvents.publish(batchId);
      this.notify();
      return batchIds.map(() => undefined);
    });
  }

  /** Works in the background until stop(). */
  start(): void {
    this.unwatchBreaker ??= this.deps.breaker?.onChange(() => this.notify());
    this.stopping = false;
    this.loop ??= this.run(async () => false, null).finally(() => {
      this.loop = undefined;
    });
  }

  /**
   * Works until `done` says so and nothing is in flight; for the CLI and tests. With a
   * batch id, only that batch's rows are claimed.
   */
  async drain(done: () => Promise<boolean>, batchId: string | null = null): Promise<void> {
    this.stopping = false;
    await this.run(async () => this.held.size === 0 && (await done()), batchId);
  }

  /** Stops claiming and waits for the rows in flight (each ends in a recorded state). */
  async stop(): Promise<void> {
    this.unwatchBreaker?.();
    this.unwatchBreaker = undefined;
    this.stopping = true;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.tasks]);
  }

  private async run(finished: () => Promise<boolean>, batchId: string | null): Promise<void> {
    const maxHeld = this.options.concurrency * 2;
    let failures = 0;
    let idleSince = 0;
    this.startHeartbeat();
    try {
      while (!this.stopping) {
        try {
          if (await finished()) break;
          await this.resumeFundedBatches();
          const room = maxHeld - this.held.size;
          // Claim in groups: a claim for one row at a time would cost a statement per row.
          const claimed = room >= Math.max(1, maxHeld / 4) && !(await this.partnerDown()) ? await this.claim(room, batchId) : [];
          for (const item of claimed) this.begin(item);
          failures = 0;
          if (claimed.length > 0) continue;
          if (this.held.size === 0 && Date.now() - idleSince >= this.options.pollMs) {
            idleSince = Date.now();
            await this.sweep();
          }
          await this.idle();
        } catch (error) {
          failures++;
          const delay = Math.min(30_000, this.options.pollMs * 2 ** Math.min(failures, 6));
          this.deps.logger.error({ err: error, retryInMs: delay }, 'batch worker: database error; going on after a pause');
          await this.idle(delay);
        }
      }
    } finally {
      if (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
      this.stopHeartbeat();
    }
  }

  /** Waits until a row finishes, stop() is called, or the poll interval passes (one waiter: the loop). */
  private idle(ms = this.options.pollMs): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = () => {};
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /**
   * Batches paused for lack of funds whose check is due (one process takes each): resumed
   * once the balance covers the rows left and their commission, else looked at again later.
   */
  private async resumeFundedBatches(): Promise<void> {
    const funds = this.deps.funds;
    if (funds === undefined || Date.now() - this.fundsLookedAt < FUNDS_LOOK_MS || this.deps.breaker?.isOpen === true) return;
    this.fundsLookedAt = Date.now();
    for (const due of await takeFundsChecks(this.deps.query, FUNDS_MAX_CHECK_MS)) {
      const pausedMs = Date.now() - due.pausedAt.getTime();
      const next = Math.min(FUNDS_MAX_CHECK_MS, Math.max(FUNDS_FIRST_CHECK_MS, Math.round(pausedMs / 4)));
      try {
        const picture = await funds.forResume(due.id);
        if (picture.shortfallMinor > 0n) {
          await stillShort(this.deps.query, due.id, picture.shortfallMinor, next);
          // The shortfall as now read, to the batch's page and its subscribers.
          this.deps.batchEvents.publish(due.id);
          continue;
        }
        if (await resumeFunded(this.deps.query, due.id)) {
          this.deps.logger.info({ batchId: due.id }, 'batch resumed: the balance covers the rows left');
          this.deps.batchEvents.publish(due.id);
        }
      } catch (error) {
        this.deps.logger.warn({ err: error, batchId: due.id }, 'could not read the balance for a batch paused for funds; trying again later');
        await stillShort(this.deps.query, due.id, null, next);
      }
    }
  }

  /** True while the partner breaker is open: rows wait in their states, with no retry spent. */
  private async partnerDown(): Promise<boolean> {
    const breaker = this.deps.breaker;
    if (breaker === undefined) return false;
    await breaker.refresh();
    return breaker.isOpen;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = () => {};
    wake();
  }

  private async claim(limit: number, batchId: string | null): Promise<ClaimedItem[]> {
    const claimed = await claimItems(this.deps.query, {
      owner: this.owner,
      token: randomUUID(),
      leaseMs: this.options.leaseMs,
      inFlight: [...this.held.keys()],
      batchId,
      limit,
    });
    if (claimed.length > 0) this.deps.claims?.onClaim(claimed.map((item) => item.waitedMs));
    return claimed;
  }

  /**
   * With nothing to do: settle rows from payments seen final elsewhere, end finished
   * batches, and reject imports whose process died.
   */
  private async sweep(): Promise<void> {
    const settled = await settleFromPayments(this.deps.query);
    const finished = await finishBatches(this.deps.query, null);
    const rejected = await rejectStaleImports(this.deps.query, this.options.importStaleMs);
    // Card data of rows that can no longer be paid, and of failed rows past the retention period.
    await scrubCardData(this.deps.query, { batchIds: null, retentionDays: this.deps.cardData.retentionDays });
    // Rows an earlier version stored in clear: sealed or masked, a group per sweep.
    await protectLegacyRows(this.deps.query, this.deps.cardData);
    for (const batchId of new Set([...settled, ...finished, ...rejected])) this.deps.batchEvents.publish(batchId);
  }

  private begin(item: ClaimedItem): void {
    const held: Held = { ...item, lost: new AbortController() };
    this.held.set(item.id, held);
    const task = this.pay(held)
      .catch((error: unknown) => {
        if (held.lost.signal.aborted) return;
        this.deps.logger.error({ err: error, paymentId: held.paymentId }, 'batch row interrupted; it resumes when its lease ends');
      })
      .finally(() => {
        this.held.delete(item.id);
        this.tasks.delete(task);
        this.notify();
      });
    this.tasks.add(task);
  }

  /** One row from the state it was claimed in to its next resting state. */
  private async pay(row: Held): Promise<void> {
    const signal = row.lost.signal;
    const before = row.status;
    let stage: Stage;
    let outcome: CreateOutcome;
    switch (row.status) {
      case 'PENDING':
      case 'CREATING': {
        if (row.status === 'PENDING' && row.attempt > 1 && !(await this.previousAttemptNotPaid(row))) return;
        const readOnly = row.status === 'CREATING' && sendsSpent(row.retries, this.policy);
        // CREATING is written inside the call's slot: a row still waiting for one stays
        // PENDING, so a cancel that comes meanwhile ends it without a create.
        const created = await this.call(row, async (): Promise<CreateOutcome | Unreadable | null> => {
          // Opened here, in the call's slot: the full recipient lives only as long as this call.
          let payload: PaymentPayload;
          try {
            payload = this.payloadOf(row);
          } catch (error) {
            return { kind: 'unreadable', error: error as Error };
          }
          if (readOnly) return this.deps.attempts.readBackCreate(row.paymentId, payload, signal);
          if (!(await this.write(row, () => this.begins.push(this.intentOf(row)), (moved) => !moved))) return null;
          row.status = 'CREATING';
          return this.deps.attempts.create(row.paymentId, payload, signal);
        });
        if (created === null) return;
        if (created.kind === 'unreadable') return this.unreadable(row, created.error);
        outcome = created;
        if (outcome.kind === 'ready') {
          if (!(await this.startExecuting(row, outcome.payment, 0))) return;
          outcome = await this.call(row, () => this.deps.attempts.execute(row.paymentId, signal));
          stage = 'execute';
        } else stage = 'create';
        break;
      }
      case 'READY':
        // The execute step's count goes on across READY ⇄ EXECUTING: its sends stay bounded.
        if (!(await this.startExecuting(row, null, row.retries))) return;
        outcome = await this.call(row, () => this.deps.attempts.execute(row.paymentId, signal));
        stage = 'execute';
        break;
      case 'EXECUTING':
        // Sends spent: only read. READY then is no proof (an execute sent earlier may still
        // land): the row stays EXECUTING and is read again until the payment leaves READY.
        outcome = sendsSpent(row.retries, this.policy)
          ? await this.call(row, () => this.deps.attempts.read(row.paymentId, undefined, signal))
          : await this.call(row, () => this.deps.attempts.resumeExecute(row.paymentId, signal));
        stage = 'execute';
        break;
      case 'IN_PROGRESS':
        outcome = await this.call(row, () => this.deps.attempts.read(row.paymentId, undefined, signal));
        stage = 'read';
        break;
    }
    await this.move(row, changeAfter(stage, outcome, row.retries, this.policy, before), false);
  }

  /**
   * A retried row (attempt > 1) is paid under a new paymentId only once the previous one is
   * proven unpaid: FAILED or EXPIRED, or unknown to the upstream (never created). READY is
   * no proof: an execute sent before may still land, so the row waits (PENDING, no retry
   * spent) until that payment leaves READY. A late webhook or answer may have completed it
   * since it was marked failed: then the row is held for a person. An upstream that cannot
   * be asked leaves the row PENDING for later, with no retry spent.
   */
  private async previousAttemptNotPaid(row: Held): Promise<boolean> {
    const previousId = paymentIdFor(row.batchId, row.line, row.attempt - 1);
    const read = await this.call(row, () => this.deps.attempts.read(previousId, undefined, row.lost.signal));
    switch (read.kind) {
      case 'failed':
      case 'not-paid':
        return true;
      case 'ready':
      case 'unreachable':
      case 'unknown': {
        const error = read.kind === 'ready' ? new PaymentStillReadyError(previousId) : read.error;
        const wait = changeAfter('create', { kind: 'unreachable', error }, row.retries, this.policy, 'PENDING');
        // A READY payment may stay so until it expires upstream: read it at the slowest retry pace.
        await this.move(row, read.kind === 'ready' ? { ...wait, delayMs: this.policy.delay(this.policy.maxRetries) } : wait, false);
        return false;
      }
      case 'paid':
      case 'in-progress':
        await this.move(
          row,
          holdForReview('batch.previous-attempt', `the previous attempt ${previousId} is now ${read.payment.status.value}; not paid again`, row.retries),
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
  private async unreadable(row: Held, error: Error): Promise<void> {
    const code = (error as { code?: string }).code ?? 'card-data.unreadable';
    if (error instanceof UnknownDataKeyError) {
      this.deps.logger.error({ paymentId: row.paymentId, kid: error.kid, code }, 'batch row sealed under a data key this worker does not have; waiting');
      await this.move(
        row,
        { to: row.status, errorCode: code, errorMessage: error.message, payment: null, localPayment: null, retries: row.retries, delayMs: UNKNOWN_KEY_DELAY_MS, finished: false },
        false,
      );
      return;
    }
    this.deps.logger.error({ paymentId: row.paymentId, code }, 'batch row card data cannot be read; not paid');
    const change: RowChange =
      row.status === 'PENDING'
        ? { to: 'FAILED', errorCode: code, errorMessage: error.message, payment: null, localPayment: null, retries: row.retries, delayMs: null, finished: true }
        : holdForReview(code, `${error.message}; a create may have been sent, so it is not sent again`, row.retries);
    await this.move(row, change, false);
  }

  /** READY (or just created) → EXECUTING, durable before execute; false if cancelled or lost. */
  private async startExecuting(row: Held, payment: Payment | null, retries: number): Promise<boolean> {
    return (await this.move(row, startExecuting(payment, retries), true)) === 'EXECUTING';
  }

  /** Writes the row's next state; returns it, or null when the row is no longer this worker's. */
  private async move(row: Held, change: RowChange, keepLease: boolean): Promise<string | null> {
    const result = await this.write(row, () => this.moves.push(this.moveOf(row, change, keepLease)), (moved) => moved.status === null);
    if (result === false || result.status === null) return null;
    row.status = result.status as Held['status'];
    row.retries = change.retries;
    return result.status;
  }

  /** A write of this row's state, tried again on database errors; false when the row is lost. */
  private async write<T>(row: Held, send: () => Promise<T>, lost: (result: T) => boolean): Promise<T | false> {
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
        await sleep(jittered(200 * 2 ** tries));
      }
    }
  }

  private async call<T>(row: Held, run: () => Promise<T>): Promise<T> {
    const perBatch = this.limitFor(row.batchId);
    return perBatch(() =>
      this.calls(async () => {
        row.lost.signal.throwIfAborted();
        await this.rate.take();
        row.lost.signal.throwIfAborted();
        return run();
      }),
    );
  }

  private limitFor(batchId: string): LimitFunction {
    let limit = this.perBatch.get(batchId);
    if (limit === undefined) {
      limit = pLimit(Math.min(this.options.perBatchConcurrency, this.options.concurrency));
      this.perBatch.set(batchId, limit);
    }
    return limit;
  }

  private async writeMoves(moves: ItemMove[]): Promise<MoveResult[]> {
    const results = await moveItems(this.deps.query, moves);
    // Before any finish: a batch whose rows fail for lack of funds waits for money, it does not end.
    const unfunded = new Set<string>();
    results.forEach((result, index) => {
      const move = moves[index]!;
      if (result.batchId !== null && result.status === move.to && move.finished && move.errorCode !== null && unfundedCodes.includes(move.errorCode)) {
        unfunded.add(result.batchId);
      }
    });
    if (unfunded.size > 0) {
      const paused = await pauseForFunds(this.deps.query, [...unfunded], FUNDS_FIRST_CHECK_MS);
      if (paused.length > 0) this.deps.logger.warn({ batchIds: paused }, 'batch paused: the partner answered INSUFFICIENT_FUNDS; it resumes once the balance covers the rest');
    }
    const touched = new Set<string>();
    const ended = new Set<string>();
    results.forEach((result, index) => {
      const move = moves[index]!;
      if (result.paymentStatus !== null && move.payment !== null) {
        this.deps.paymentEvents.publish({ paymentId: move.payment.paymentId, status: result.paymentStatus });
      }
      if (result.batchId === null) return;
      touched.add(result.batchId);
      if (move.release) ended.add(result.batchId);
    });
    // Once per group, not per row, and off the rows' path: only a group with rows that came
    // to rest can end a batch, and a failure here is caught up by the idle sweep.
    for (const batchId of ended) {
      const finishing = this.finishes
        .push(batchId)
        .catch((error: unknown) => this.deps.logger.warn({ err: error, batchId }, 'could not end a batch yet; the sweep will'))
        .finally(() => this.tasks.delete(finishing));
      this.tasks.add(finishing);
    }
    for (const batchId of touched) this.deps.batchEvents.publish(batchId);
    return results;
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    let beating = false;
    this.heartbeat = setInterval(() => {
      if (beating || this.held.size === 0) return;
      beating = true;
      const rows = [...this.held.values()];
      renewLeases(this.deps.query, rows, this.options.leaseMs)
        .then((kept) => {
          for (const row of rows) {
            if (!kept.has(row.id) && this.held.has(row.id)) row.lost.abort(new Error('the lease was lost'));
          }
        })
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'lease renewal failed; trying again'))
        .finally(() => {
          beating = false;
        });
    }, Math.max(50, Math.floor(this.options.leaseMs / 3)));
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private intentOf(row: Held): CreateIntent {
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

  private moveOf(row: Held, change: RowChange, keepLease: boolean): ItemMove {
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
  private factOf(row: Held, change: RowChange): PaymentFact | null {
    const source = row.status === 'IN_PROGRESS' ? 'read-back' : row.status === 'CREATING' ? 'create' : 'execute';
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

  private payloadOf(row: Held): PaymentPayload {
    const webhookUrl = this.deps.webhookUrl();
    return {
      amount: { value: row.amount, currency: row.currency as 'RUB' },
      recipientDetails: {
        providerCode: row.providerCode as PaymentPayload['recipientDetails']['providerCode'],
        fields: this.deps.cardData.open(row.fields, row),
      },
      ...(webhookUrl === undefined ? {} : { webhookUrl }),
      ...(row.customFields === null ? {} : { customFields: row.customFields }),
    };
  }
}

/** A row whose sealed recipient could not be opened: no create is sent. */
interface Unreadable {
  kind: 'unreadable';
  error: Error;
}

/** Upstream words are stored and shown to many: a card number an upstream message might echo is masked. */
function safeMessage(message: string | null): string | null {
  return message === null ? null : redactCardNumbers(message);
}

function jittered(ceiling: number): number {
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

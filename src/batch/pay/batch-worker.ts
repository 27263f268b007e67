import { randomBytes, randomUUID } from 'node:crypto';
import type { SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { backoffCeiling, backoffDelay } from '../../lib/retry.ts';
import type { PayoutClient } from '../../payout/client.ts';
import type { PaymentAttempts } from '../../payments/attempt.ts';
import type { PaymentEvents } from '../../payments/events.ts';
import type { PartnerBreaker } from '../../partner/partner-breaker.ts';
import type { CardDataVault } from '../card-data.ts';
import type { BatchEvents } from '../events/batch-events.ts';
import { finishBatches } from '../lifecycle/sql/finish-batches.ts';
import { DEFAULT_IMPORT_STALE_MS, rejectStaleImports } from '../lifecycle/sql/reject-stale-imports.ts';
import { sweepSchedule } from '../lifecycle/schedule-sweep.ts';
import type { RetryPolicy } from '../states/row-states.ts';
import { claimItems, type ClaimedItem } from '../rows/sql/claim-items.ts';
import { protectLegacyRows } from '../rows/sql/protect-legacy-rows.ts';
import { noteRetry } from '../rows/sql/note-retry.ts';
import { renewLeases } from '../rows/sql/renew-leases.ts';
import { nextDueInMs } from '../rows/sql/next-due.ts';
import { leaseClocks, rowFence, sendMarginMs, type LeaseClocks } from './send-fence.ts';
import type { CallOptions } from '../../payout/call-hooks.ts';
import { scrubCardData } from '../rows/sql/scrub-card-data.ts';
import { settleFromPayments } from '../rows/sql/settle-from-payments.ts';
import { CallSlots, type CallSlotOptions } from './call-slots.ts';
import type { FundsCheck } from '../funds/funds-check.ts';
import { RowPayer } from './pay-row.ts';
import { RowWrites, type HeldRow } from './row-writes.ts';
import { pauseUnfundedBatches } from '../funds/sql/pause-unfunded-batches.ts';
import { resumeFundedBatches } from '../funds/resume-funded-batches.ts';
import { FUNDS_FIRST_CHECK_MS } from '../funds/funds-check.ts';

export interface WorkerOptions extends CallSlotOptions {
  /** How long a claim holds without a heartbeat; a dead worker's rows are taken over after this. */
  leaseMs: number;
  /**
   * The longest a worker with nothing due sleeps: a safety poll only. It is woken by notices
   * of new work (BatchEvents.workArrived), by a row of its own ending, by the breaker, and by
   * a timer at the next due time (sql/next-due.ts); docs/decisions/0034-workers-woken-not-polling.md.
   */
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
  leaseMs: 60_000,
  pollMs: 10_000,
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
  /** Told how long each claimed row waited to be claimed (observability/metrics.ts). */
  claims?: { onClaim(waitedMs: readonly number[]): void };
  /** The balance against what batches need (funds-check.ts): resumes batches paused for funds. */
  funds?: FundsCheck;
  /** One database transaction (the runtime's, through Prisma): a scheduled batch short at its release is released and paused in one (schedule-sweep.ts). */
  inTransaction?: <T>(work: (query: SqlQuery) => Promise<T>) => Promise<T>;
  /** The partner breaker (partner/partner-breaker.ts): while it is open nothing is claimed but, when throttled, the probe's one row. */
  breaker?: Pick<PartnerBreaker, 'isOpen' | 'refresh' | 'onChange' | 'takeRowProbe' | 'probeWith' | 'rowProbeEnded'>;
}

const IN_PROGRESS_FIRST_CHECK_MS = 2_000;
/** A row read back for as long as the partner cannot settle it is read at least this often. */
const MAX_RETRY_DELAY_MS = 60_000;
const IN_PROGRESS_MAX_CHECK_MS = 60_000;
/** How often this worker looks for batches whose balance check is due, while it works (idle, the due timer wakes it). */
const FUNDS_LOOK_MS = 1_000;
/** While the partner breaker is open, how often the worker asks whether its probe is due (as it polled before issue 41). */
const BREAKER_LOOK_MS = 500;
/** Idle, a worker sweeps unasked once in this many safety polls (a minute by default); at once when its work ends, at a notice and when something comes due. */
const POLLS_PER_SWEEP = 6;
/** A due time already past (a row due between the claim and the look): the least wait before claiming again. */
const MIN_IDLE_MS = 20;

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
  private readonly held = new Map<string, HeldRow>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly payer: RowPayer;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopping = false;
  private wake: () => void = () => {};
  /** A notice came while the loop was not waiting: its next wait returns at once. */
  private woken = false;
  private waitingNow = false;
  /** A notice from outside asks for a sweep too (rows settled elsewhere may finish a batch). */
  private sweepWanted = true;
  private unwatchBreaker: (() => void) | undefined;
  private unwatchWork: (() => void) | undefined;
  private fundsLookedAt = 0;

  constructor(
    private readonly deps: WorkerDeps,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...defaultWorkerOptions, ...options };
    const policy: RetryPolicy = {
      maxRetries: this.options.maxRetries,
      delay: (retry) => backoffDelay(retry, { baseMs: this.options.retryBaseMs, maxMs: MAX_RETRY_DELAY_MS }),
      inProgressDelay: (check) => backoffCeiling(check, { baseMs: IN_PROGRESS_FIRST_CHECK_MS, maxMs: IN_PROGRESS_MAX_CHECK_MS }),
    };
    const writes = new RowWrites(
      { ...deps, agentId: deps.client.agentId },
      this.tasks,
      () => this.notify(),
      (batchId, except) => [...this.held.values()].some((row) => row.batchId === batchId && !except.has(row.id)),
    );
    this.payer = new RowPayer(deps, policy, new CallSlots(this.options), writes);
  }

  /** True while the loop waits (for a notice, a row of its own, its timer): what a test waits for before it brings work. */
  get waiting(): boolean {
    return this.waitingNow;
  }

  /** Works in the background until stop(). */
  start(): void {
    this.unwatchBreaker ??= this.deps.breaker?.onChange(() => this.notify());
    this.unwatchWork ??= this.deps.batchEvents.onWork(() => {
      this.sweepWanted = true;
      this.notify();
    });
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
    this.unwatchWork?.();
    this.unwatchWork = undefined;
    this.stopping = true;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.tasks]);
  }

  private async run(finished: () => Promise<boolean>, batchId: string | null): Promise<void> {
    const maxHeld = this.options.concurrency * 2;
    let failures = 0;
    let lastSweep = 0;
    let worked = false;
    let overdue = 0;
    this.startHeartbeat();
    try {
      while (!this.stopping) {
        try {
          // A notice from here on asks for another pass: the claim below may have begun before its change was committed.
          this.woken = false;
          if (await finished()) break;
          await this.resumeFundedBatches();
          const room = maxHeld - this.held.size;
          // Claim in groups: a claim for one row at a time would cost a statement per row.
          const enough = room >= Math.max(1, maxHeld / 4);
          const claimedAt = leaseClocks();
          const down = enough && (await this.partnerDown());
          const claimed = !enough ? [] : down ? await this.claimProbe(batchId) : await this.claim(room, batchId);
          for (const item of claimed) this.begin(item, claimedAt);
          failures = 0;
          if (claimed.length > 0) {
            worked = true;
            overdue = 0;
            continue;
          }
          if (this.held.size > 0) {
            await this.idle();
            continue;
          }
          // Idle: sweep when work just ended, when a notice asked, when something came due (a
          // scheduled release, a forecast, a funds check: the sweep takes them), and on a slow clock of its own.
          const due = down ? null : await nextDueInMs(this.deps.query);
          const dueNow = due !== null && due <= 0;
          if (worked || this.sweepWanted || dueNow || Date.now() - lastSweep >= this.options.pollMs * POLLS_PER_SWEEP) {
            worked = false;
            this.sweepWanted = false;
            lastSweep = Date.now();
            await this.sweep();
          }
          // Something due that neither the claim nor the sweep took (another worker's turn, a drain of one batch): wait longer each time.
          overdue = dueNow ? overdue + 1 : 0;
          await this.idle(down ? BREAKER_LOOK_MS : this.waitFor(due, overdue));
        } catch (error) {
          failures++;
          const base = Math.min(this.options.pollMs, BREAKER_LOOK_MS);
          const delay = backoffDelay(failures, { baseMs: base, maxMs: 30_000, floorMs: base });
          this.deps.logger.error({ err: error, retryInMs: delay }, 'batch worker: database error; going on after a pause');
          await this.idle(delay);
        }
      }
    } finally {
      if (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
      this.stopHeartbeat();
    }
  }

  /** How long to sleep with nothing to claim: until the next due time, at most the safety poll. */
  private waitFor(dueInMs: number | null, overdue: number): number {
    if (dueInMs === null) return this.options.pollMs;
    const least = MIN_IDLE_MS * 2 ** Math.min(overdue, 10);
    return Math.min(this.options.pollMs, Math.max(least, Math.ceil(dueInMs)));
  }

  /** Waits until a row finishes, a notice comes, stop() is called, or `ms` pass (one waiter: the loop). */
  private idle(ms = this.options.pollMs): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    this.waitingNow = true;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waitingNow = false;
        if (this.wake === done) this.wake = () => {};
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Batches paused for lack of funds whose check is due (funds/resume-funded-batches.ts), looked for at most once a second. */
  private async resumeFundedBatches(): Promise<void> {
    const funds = this.deps.funds;
    if (funds === undefined || Date.now() - this.fundsLookedAt < FUNDS_LOOK_MS || this.deps.breaker?.isOpen === true) return;
    this.fundsLookedAt = Date.now();
    await resumeFundedBatches({ ...this.deps, funds });
  }

  /** True while the partner breaker is open: rows wait in their states, with no retry spent. */
  private async partnerDown(): Promise<boolean> {
    const breaker = this.deps.breaker;
    if (breaker === undefined) return false;
    await breaker.refresh();
    return breaker.isOpen;
  }

  private notify(): void {
    this.woken = true;
    const wake = this.wake;
    this.wake = () => {};
    wake();
  }

  /** While the breaker is open for throttling: one row whose send probes the partner, when the turn is ours. */
  private async claimProbe(batchId: string | null): Promise<ClaimedItem[]> {
    const breaker = this.deps.breaker;
    if (breaker === undefined || !(await breaker.takeRowProbe())) return [];
    const claimed = await this.claim(1, batchId, true).catch((error: unknown) => {
      breaker.probeWith(null);
      throw error;
    });
    breaker.probeWith(claimed[0]?.paymentId ?? null);
    return claimed;
  }

  private async claim(limit: number, batchId: string | null, probe = false): Promise<ClaimedItem[]> {
    const claimed = await claimItems(this.deps.query, {
      probe,
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
    const pausedForFunds = await pauseUnfundedBatches(this.deps.query, FUNDS_FIRST_CHECK_MS);
    const finished = await finishBatches(this.deps.query, null);
    const rejected = await rejectStaleImports(this.deps.query, this.options.importStaleMs);
    // Card data of rows that can no longer be paid, and of failed rows past the retention period.
    await scrubCardData(this.deps.query, { batchIds: null, retentionDays: this.deps.cardData.retentionDays });
    // Rows an earlier version stored in clear: sealed or masked, a group per sweep.
    await protectLegacyRows(this.deps.query, this.deps.cardData);
    // Scheduled batches whose time has come start paying, whichever worker gets here first (once); forecasts due are read.
    const released = await sweepSchedule(this.deps);
    for (const batchId of new Set([...settled, ...pausedForFunds, ...finished, ...rejected, ...released]))
      this.deps.batchEvents.publish(batchId);
  }

  private begin(item: ClaimedItem, claimedAt: LeaseClocks): void {
    const lost = new AbortController();
    const call: CallOptions = { signal: lost.signal };
    const held: HeldRow = {
      ...item,
      lost,
      leaseEndsAt: claimedAt.monotonic + this.options.leaseMs,
      leaseEndsAtWall: claimedAt.wall + this.options.leaseMs,
      call,
    };
    call.fence = rowFence(held, this.deps.query, sendMarginMs(this.options.leaseMs));
    // Said on the row from the first retry within an attempt, so its batch says why it waits (issue 38).
    call.onRetry = (error, delayMs) => {
      if (error === undefined) return;
      noteRetry(this.deps.query, item, error, delayMs).then(
        () => this.deps.batchEvents.publish(item.batchId),
        (failure: unknown) => this.deps.logger.warn({ err: failure, paymentId: item.paymentId }, 'batch row: could not note its retry'),
      );
    };
    this.held.set(item.id, held);
    const task = this.payer
      .pay(held)
      .catch((error: unknown) => {
        if (held.lost.signal.aborted) return;
        this.deps.logger.error({ err: error, paymentId: held.paymentId }, 'batch row interrupted; it resumes when its lease ends');
      })
      .finally(() => {
        this.held.delete(item.id);
        this.tasks.delete(task);
        this.deps.breaker?.rowProbeEnded(item.paymentId);
        this.notify();
      });
    this.tasks.add(task);
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    let beating = false;
    this.heartbeat = setInterval(
      () => {
        if (beating || this.held.size === 0) return;
        beating = true;
        const rows = [...this.held.values()];
        const renewedAt = leaseClocks();
        renewLeases(this.deps.query, rows, this.options.leaseMs)
          .then((kept) => {
            for (const row of rows) {
              if (kept.has(row.id)) {
                row.leaseEndsAt = Math.max(row.leaseEndsAt, renewedAt.monotonic + this.options.leaseMs);
                row.leaseEndsAtWall = Math.max(row.leaseEndsAtWall, renewedAt.wall + this.options.leaseMs);
              } else if (this.held.has(row.id)) row.lost.abort(new Error('the lease was lost'));
            }
          })
          .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'lease renewal failed; trying again'))
          .finally(() => {
            beating = false;
          });
      },
      Math.max(50, Math.floor(this.options.leaseMs / 3)),
    );
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

import type { Logger } from '../log/logger.ts';
import type { PaymentService } from './payment-service.ts';
import type { PaymentTracker } from './tracker.ts';

export interface ReadBackOptions {
  /** The least wait between passes (READ_BACK_INTERVAL_MS); with nothing due sooner, a pass waits up to IDLE_PASS_MS. */
  intervalMs: number;
  /** Read-backs per pass at most. */
  batchSize: number;
}

/** With no payment waiting for a read-back, the next pass looks after this (a payment moved into such a state here arms it sooner). */
const IDLE_PASS_MS = 60_000;

/**
 * Settles payments left IN_PROGRESS (or UNKNOWN) when no webhook arrives, by reading
 * them back with growing delays between reads of the same payment (payment-records.ts).
 * Not to be confused with a reconciliation (src/reconciliation/), which compares a day of
 * payments with the upstream's list.
 */
export class ReadBack {
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (epoch ms). */
  private firesAt = 0;
  private unwatch: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly tracker: PaymentTracker,
    private readonly payments: PaymentService,
    private readonly options: ReadBackOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.unwatch ??= this.tracker.onReadBackDue(() => {
      // A payment now waits for its read-back: the next pass no later than one interval from now.
      if (this.running === undefined && this.firesAt > Date.now() + this.options.intervalMs) this.arm(this.options.intervalMs);
    });
    this.arm(this.options.intervalMs);
  }

  /** One pass now: read back every payment that is due. Returns how many were read. */
  async runOnce(): Promise<number> {
    const due = await this.tracker.dueForReadBack(this.options.batchSize);
    for (const paymentId of due) {
      if (this.stopped) break;
      await this.payments.readBack(paymentId);
    }
    return due.length;
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    this.unwatch = undefined;
    clearTimeout(this.timer);
    await this.running;
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.firesAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      let next = this.options.intervalMs;
      this.running = this.runOnce()
        .then(async (read) => {
          // A full pass may have left more due now; else sleep until the next payment is due.
          if (read >= this.options.batchSize) return;
          const due = await this.tracker.nextReadBackInMs();
          next =
            due === null ? Math.max(IDLE_PASS_MS, this.options.intervalMs) : Math.min(IDLE_PASS_MS, Math.max(this.options.intervalMs, due));
        })
        .catch((error: unknown) => this.logger.error({ err: error }, 'read-back pass failed'))
        .finally(() => {
          this.running = undefined;
          this.arm(next);
        });
    }, ms);
    this.timer.unref();
  }
}

import type { Logger } from '../log/logger.ts';
import type { PaymentService } from './payment-service.ts';
import type { PaymentTracker } from './tracker.ts';

export interface ReadBackOptions {
  /** How often to look for payments due a read-back. */
  intervalMs: number;
  /** Read-backs per pass at most. */
  batchSize: number;
}

/**
 * Settles payments left IN_PROGRESS (or UNKNOWN) when no webhook arrives, by reading
 * them back with growing delays between reads of the same payment (payment-records.ts).
 * Not to be confused with a reconciliation (src/reconciliation/), which compares a day of
 * payments with the upstream's list.
 */
export class ReadBack {
  private timer: NodeJS.Timeout | undefined;
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
    this.arm();
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
    clearTimeout(this.timer);
    await this.running;
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then(
          () => undefined,
          (error: unknown) => this.logger.error({ err: error }, 'read-back pass failed'),
        )
        .finally(() => {
          this.running = undefined;
          this.arm();
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }
}

import pLimit, { type LimitFunction } from 'p-limit';
import type { HeldRow } from './row-writes.ts';

export interface CallSlotOptions {
  /** Upstream calls in flight at once, over all batches. */
  concurrency: number;
  /** Upstream calls in flight at once within one batch (at most `concurrency`). */
  perBatchConcurrency: number;
}

/**
 * Where an upstream call waits its turn: a slot of its batch, then one of the worker's (the
 * deployment's partner budget is the client's, partner/budget/). A row whose lease was lost while it waited sends nothing.
 */
export class CallSlots {
  private readonly calls: LimitFunction;
  private readonly perBatch = new Map<string, LimitFunction>();

  constructor(private readonly options: CallSlotOptions) {
    this.calls = pLimit(options.concurrency);
  }

  async call<T>(row: HeldRow, run: () => Promise<T>): Promise<T> {
    const perBatch = this.limitFor(row.batchId);
    return perBatch(() =>
      this.calls(async () => {
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
}

import type { ListPaymentsQuery } from '../payout/client.ts';
import { PayoutApiError } from '../payout/errors.ts';
import type { Payment } from '../payout/models.ts';

/** The same page this many times in a row: the read makes no progress. */
const MAX_REPEATED_PAGES = 50;
/** Pages in one read of one day at most (10 million payments at 100 a page). */
const MAX_PAGES_PER_READ = 100_000;

/** The one upstream call the reader makes (endpoint 7). */
export type ListPayments = (query: ListPaymentsQuery) => Promise<Payment[]>;

export interface ListReaderOptions {
  /** The page size asked for; halved while the upstream refuses it (the spec names no maximum). */
  pageSize: number;
  /** Reads of one day before it is taken as it stands although it still moves. */
  maxReads: number;
}

export interface WindowRead {
  day: string;
  /** Pages and probes asked for this day, refused page sizes included. */
  requests: number;
  /** 1 when the day held still while read; more when it moved and was read again. */
  reads: number;
  /** False when it still moved on the last read allowed. */
  settled: boolean;
}

/**
 * Where a day's pages go. Every page of one read of the day carries that read's number
 * (unique across the reader's days); `distinct` says how many different payments a read
 * delivered, which is how the reader sees a payment delivered twice (the staging table
 * keeps one row per paymentId and counts them in the database, so nothing here grows with
 * the day).
 */
export interface DaySink {
  add(payments: Payment[], read: number): Promise<void>;
  distinct(read: number): Promise<number>;
}

/**
 * Reads one day of the upstream's payment list (from = to = day) in full, assuming as
 * little as the spec allows (docs/internals/architecture/reconciliation.md, "Reading the upstream list"):
 *
 * - a day is paged from offset 0 until a page comes back empty: `limit` is only "the
 *   maximum number returned", so a page shorter than asked is not taken as the end (an
 *   upstream may cap pages below the size asked without saying so);
 * - the list may move while it is read, and its ordering is unknown, so a read is checked
 *   two ways: the first page is read again (payments made at the front shift every offset),
 *   and the read must not have delivered a payment twice (one made or moved ahead of the
 *   read position pushes another back into a page already read, so some payment went
 *   unseen); growth at the end is read by paging until empty. A day that moved is read
 *   again whole, up to `maxReads` times;
 * - the page size is not capped by the spec: a 400 naming `limit` halves it.
 */
export class UpstreamListReader {
  private pageSize: number;
  private readNumber = 0;

  constructor(
    private readonly list: ListPayments,
    private readonly options: ListReaderOptions,
  ) {
    this.pageSize = options.pageSize;
  }

  /** The page size in use: smaller than asked once the upstream refused a larger one. */
  get currentPageSize(): number {
    return this.pageSize;
  }

  async readDay(day: string, sink: DaySink, onRequest: () => void = () => {}): Promise<WindowRead> {
    const counted = () => {
      requests++;
      onRequest();
    };
    let requests = 0;
    let reads = 0;
    for (;;) {
      reads++;
      const read = ++this.readNumber;
      const first = await this.page(day, 0, counted);
      await sink.add(first, read);
      let delivered = first.length;
      let stalled = false;
      for (let last = first, repeats = 0, pages = 1; last.length > 0; pages++) {
        const next = await this.page(day, delivered, counted);
        // Paging until an empty page must end: the same page again and again (a list that
        // grows at its front as fast as it is read, or an upstream ignoring offset), or more
        // pages than any day holds, and this read is given up as moved.
        repeats = next.length > 0 && sameIds(next, last) ? repeats + 1 : 0;
        if (repeats >= MAX_REPEATED_PAGES || pages >= MAX_PAGES_PER_READ) {
          stalled = true;
          break;
        }
        if (next.length > 0) await sink.add(next, read);
        delivered += next.length;
        last = next;
      }
      const again = await this.page(day, 0, counted);
      const moved = stalled || !sameIds(first, again) || (await sink.distinct(read)) < delivered;
      if (moved) await sink.add(again, read);
      if (!moved || reads >= this.options.maxReads) return { day, requests, reads, settled: !moved };
    }
  }

  private async page(day: string, offset: number, counted: () => void): Promise<Payment[]> {
    for (;;) {
      const limit = this.pageSize;
      counted();
      try {
        return await this.list({ from: day, to: day, limit, offset });
      } catch (error) {
        if (!(limit > 1 && refusesLimit(error))) throw error;
        this.pageSize = Math.max(1, Math.floor(limit / 2));
      }
    }
  }
}

function refusesLimit(error: unknown): boolean {
  return error instanceof PayoutApiError && error.httpStatus === 400 && 'limit' in error.details;
}

function sameIds(a: Payment[], b: Payment[]): boolean {
  return a.length === b.length && a.every((payment, index) => payment.paymentId === b[index]!.paymentId);
}

import type { ListPaymentsQuery } from '../payout/client.ts';
import { PayoutApiError } from '../payout/errors.ts';
import type { Payment } from '../payout/models.ts';

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
 * Reads one day of the upstream's payment list (from = to = day) in full, assuming as
 * little as the spec allows (docs/architecture.md, "Reading the upstream list"):
 *
 * - ordering is unknown, so nothing is inferred from it; a day is paged from offset 0
 *   until a page comes back shorter than asked;
 * - the list may move while it is read (payments made meanwhile shift offsets), so after
 *   the last page the first page is read again and, past a single page, one more page at
 *   the end: a day whose first page changed or whose end grew is read again whole;
 * - duplicates are expected (a shifted payment is seen twice): every page goes to `sink`,
 *   which keeps one copy per paymentId (the staging table's key), the later one winning;
 * - the page size is not capped by the spec: a 400 naming `limit` halves it.
 *
 * Nothing is kept here but the first page's ids, so memory does not grow with the day.
 */
export class UpstreamListReader {
  private pageSize: number;

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

  async readDay(day: string, sink: (payments: Payment[]) => Promise<void>, onRequest: () => void = () => {}): Promise<WindowRead> {
    const counted = () => {
      requests++;
      onRequest();
    };
    let requests = 0;
    let reads = 0;
    for (;;) {
      reads++;
      const first = await this.page(day, 0, counted);
      await sink(first.payments);
      let offset = first.payments.length;
      let last = first;
      while (last.payments.length >= last.limit) {
        last = await this.page(day, offset, counted);
        if (last.payments.length > 0) await sink(last.payments);
        offset += last.payments.length;
      }
      const again = await this.page(day, 0, counted);
      let moved = !sameIds(first.payments, again.payments);
      // One page held the whole day: reading it again saw everything there is.
      if (!moved && offset > first.payments.length) {
        const beyond = await this.page(day, offset, counted);
        moved = beyond.payments.length > 0;
        if (moved) await sink(beyond.payments);
      }
      if (moved) await sink(again.payments);
      if (!moved || reads >= this.options.maxReads) return { day, requests, reads, settled: !moved };
    }
  }

  private async page(day: string, offset: number, counted: () => void): Promise<{ payments: Payment[]; limit: number }> {
    for (;;) {
      const limit = this.pageSize;
      counted();
      try {
        return { payments: await this.list({ from: day, to: day, limit, offset }), limit };
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

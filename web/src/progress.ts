import { sumDecimals } from './money.ts';
import { FINAL_ITEM_STATUSES, type StatusCount } from './queries.ts';

export interface Progress {
  /** Rows that will be or were paid (INVALID rows are never paid, DUPLICATE rows only when included). */
  total: number;
  done: number;
  paid: { count: number; amount: string };
  failed: { count: number; amount: string };
  /** Rows a cancel ended: never paid (never sent, or created and not executed). */
  cancelled: { count: number; amount: string };
  inFlight: number;
  waiting: number;
  /** 0..100, whole percent, never 100 before every row is final. */
  percent: number;
}

const FAILED = ['FAILED', 'EXPIRED', 'NEEDS_REVIEW'];
const IN_FLIGHT = ['CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS'];

export function progressOf(counts: readonly StatusCount[]): Progress {
  const pick = (statuses: readonly string[]) => counts.filter((c) => statuses.includes(c.status));
  const count = (rows: readonly StatusCount[]) => rows.reduce((sum, c) => sum + c.count, 0);
  const total = count(counts.filter((c) => c.status !== 'INVALID' && c.status !== 'DUPLICATE'));
  const done = count(pick(FINAL_ITEM_STATUSES));
  const completed = pick(['COMPLETED']);
  const failed = pick(FAILED);
  const cancelled = pick(['CANCELLED']);
  return {
    total,
    done,
    paid: { count: count(completed), amount: sumDecimals(completed.map((c) => c.amount)) },
    failed: { count: count(failed), amount: sumDecimals(failed.map((c) => c.amount)) },
    cancelled: { count: count(cancelled), amount: sumDecimals(cancelled.map((c) => c.amount)) },
    inFlight: count(pick(IN_FLIGHT)),
    waiting: count(pick(['PENDING'])),
    percent: total === 0 ? 0 : done === total ? 100 : Math.min(99, Math.floor((done * 100) / total)),
  };
}

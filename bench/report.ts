import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/**
 * One measured figure of a benchmark, beside its target. Each bench script prints its own
 * lines for a human and, when `npm run bench` runs it, also hands its figures to the runner
 * (bench/all.ts) through the file named by BENCH_REPORT_FILE, one JSON object a line.
 */
export interface Figure {
  /** The bench that measured it: pay, import, facade, startup. */
  bench: string;
  /** What was measured, in words a reader of docs/internals/benchmarks/ understands. */
  name: string;
  /** Already rounded for display; the unit says what it counts. */
  value: number;
  unit: string;
  /** The target in words, e.g. "≥ 25000", or "—" where the figure is context, not a target. */
  target: string;
  /** Whether the target is met; absent where there is no target. */
  met?: boolean;
  /** The run's conditions: database, latency, rows, the reference it was compared with. */
  detail?: string;
  /** Load average (1 min) when the figure was taken. */
  load: number;
}

export function report(figure: Omit<Figure, 'load'>): void {
  const file = process.env.BENCH_REPORT_FILE;
  if (file === undefined || file === '') return;
  const load = Number((loadavg()[0] ?? 0).toFixed(2));
  appendFileSync(file, `${JSON.stringify({ ...figure, load })}\n`);
}

/**
 * How large the fault scenarios run (docs/decisions/0031-fault-scenarios-at-two-sizes.md).
 * `npm test` runs each at a size that still lands every fault mid-work (kills inside rows,
 * terminations inside statements, a worker paused until its rows are taken over), so that a
 * contributor's whole suite fits in about ten minutes; `FAULT_SCALE=full` runs them at the
 * sizes of the issues that asked for them (a 100,000-row import, 30 kills over 2,000 rows),
 * which is how CI runs `npm test`. What a scenario checks is the same at both sizes.
 */
export type FaultScale = 'quick' | 'full';

function readScale(value: string | undefined): FaultScale {
  if (value === undefined || value === '' || value === 'quick') return 'quick';
  if (value === 'full') return 'full';
  throw new Error(`FAULT_SCALE=${JSON.stringify(value)}: expected "quick" (the default) or "full"`);
}

export const faultScale: FaultScale = readScale(process.env.FAULT_SCALE);

/** The value for the scale this run has. */
export function atScale<T>(sizes: Record<FaultScale, T>): T {
  return sizes[faultScale];
}

/** A count as scenario names and summaries write it: 100,000. */
export const counted = (n: number): string => n.toLocaleString('en-US');

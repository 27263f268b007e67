export interface BreakerOptions {
  /** Calls in a row that ended in trouble before the breaker opens. */
  troubleCalls: number;
  /** ... over at least this many different paths: one payment's trouble is not the partner's. */
  troublePaths: number;
  /** Wait before the first probe; it doubles with each failed probe, up to probeMaxMs. */
  probeBaseMs: number;
  probeMaxMs: number;
  /** How often an open breaker is read again (and whether a probe is due), and a closed one at most. */
  refreshMs: number;
}

/** Why these numbers: docs/internals/reliability.md "The partner breaker" (measured with bench/breaker-thresholds.ts). */
export const defaultBreakerOptions: BreakerOptions = {
  troubleCalls: 12,
  troublePaths: 3,
  probeBaseMs: 1_000,
  probeMaxMs: 30_000,
  refreshMs: 1_000,
};

/** Durations of the sandbox's test features as people write them: 500ms, 90s, 2m, 1h. */
const DURATION = /^(\d{1,7})(ms|s|m|h)$/;
const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** The longest outage: a forgotten one must not outlive a working day. */
export const MAX_DURATION_MS = 24 * 3_600_000;

export const DURATION_HINT = 'a number and a unit, such as 90s, 2m or 1h (also ms)';

/** Milliseconds, or undefined when `text` is not a duration from 1 ms to 24 h. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (match === null) return undefined;
  const ms = Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
  return ms >= 1 && ms <= MAX_DURATION_MS ? ms : undefined;
}

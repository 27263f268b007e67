/**
 * The wait before attempt `attempt + 1` of an event: doubling from baseMs up to maxMs, then
 * between half and all of it at random ("equal jitter"), so receivers coming back from an
 * outage are not met by every subscription at the same instant.
 */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

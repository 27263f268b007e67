/**
 * The one retry schedule (docs/internals/backoff.md): exponential backoff with "full jitter",
 *
 *   delay(n) = max(floor, round(random() · min(max, base · 2ⁿ)))   (n = 0 for the first retry)
 *
 * a uniform pick below a ceiling that doubles per attempt up to a cap, never under a floor,
 * and Retry-After read one way and honoured as the shortest wait. Every place that waits
 * before asking again (partner calls, payment attempts, batch rows, the event listener,
 * event delivery, interactive transactions, the sandbox's webhooks) takes its waits from
 * here with its own base, cap and floor, so the schedule is one formula with settings.
 * Full jitter rather than equal jitter (half the ceiling plus a pick in the other half): of
 * the schemes compared in the AWS Architecture Blog's "Exponential Backoff And Jitter", it
 * spreads processes that failed together the widest, so they do the fewest calls and finish
 * soonest; equal jitter keeps half of every wait in step across them. test/lib/retry.test.ts
 * states the formula and its table.
 */
export interface BackoffOptions {
  /** The ceiling of the first wait (attempt 0); it doubles with each attempt. */
  baseMs: number;
  /** No ceiling grows past this. */
  maxMs: number;
  /** No wait is shorter than this (never a tight loop, whatever the jitter picks); 0 if left out. */
  floorMs?: number;
}

/** Past 2^52 doubling changes nothing a caller can wait for; the bound keeps base·2ⁿ finite (and 0·2ⁿ not NaN). */
const MAX_DOUBLINGS = 52;

/** The n-th ceiling (0-based): base·2^n, capped. Alone, it is the schedule without jitter. */
export function backoffCeiling(attempt: number, options: Pick<BackoffOptions, 'baseMs' | 'maxMs'>): number {
  return Math.min(options.maxMs, options.baseMs * 2 ** Math.min(Math.max(attempt, 0), MAX_DOUBLINGS));
}

/** Full jitter: a uniform pick in [0, ceiling], raised to the floor. Processes that failed together do not retry together. */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  return Math.max(options.floorMs ?? 0, Math.round(random() * backoffCeiling(attempt, options)));
}

/** The wait before a retry: the backoff, and at least what the server asked for in Retry-After. */
export function retryDelay(
  attempt: number,
  options: BackoffOptions,
  retryAfter: number | undefined,
  random: () => number = Math.random,
): number {
  return Math.max(retryAfter ?? 0, backoffDelay(attempt, options, random));
}

/** Retry-After as milliseconds: whole seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

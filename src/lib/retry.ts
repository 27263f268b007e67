/**
 * The one retry schedule: exponential backoff with "full jitter" (a uniform pick below a
 * ceiling that doubles per attempt up to a cap), never under a floor, and Retry-After read
 * one way and honoured as the shortest wait. Every place that waits before asking again
 * (partner calls, payment attempts, batch rows, the event listener, the sandbox's webhooks)
 * takes its waits from here, so the schedule is one formula with settings.
 */
export interface BackoffOptions {
  /** The ceiling of the first wait (attempt 0); it doubles with each attempt. */
  baseMs: number;
  /** No ceiling grows past this. */
  maxMs: number;
  /** No wait is shorter than this (never a tight loop, whatever the jitter picks); 0 if left out. */
  floorMs?: number;
}

/** The n-th ceiling (0-based): base·2^n, capped. Alone, it is the schedule without jitter. */
export function backoffCeiling(attempt: number, options: Pick<BackoffOptions, 'baseMs' | 'maxMs'>): number {
  return Math.min(options.maxMs, options.baseMs * 2 ** attempt);
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

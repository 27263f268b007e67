import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TRANSACTION_BACKOFF } from '../../src/db/transaction-retry.ts';
import { reconnectBackoff } from '../../src/events/pg-listener.ts';
import { backoffCeiling, backoffDelay, retryAfterMs, retryDelay, type BackoffOptions } from '../../src/lib/retry.ts';

/**
 * The one backoff (src/lib/retry.ts), stated as graphile-worker's page on exponential backoff
 * states its own:
 *
 *   delay(n) = max(floor, round(random() · min(max, base · 2ⁿ)))
 *
 * n counts from 0 (the first retry), random() is uniform in [0, 1). The ceiling alone
 * (random() → 1, no floor) is the schedule without jitter that read-backs use.
 */
const always = (value: number) => () => value;

describe('the one backoff: full jitter below a doubling, capped ceiling', () => {
  it('picks uniformly between the floor and base·2ⁿ, capped at max (base 1 s, cap 1 min)', () => {
    const options: BackoffOptions = { baseMs: 1_000, maxMs: 60_000 };
    // n, ceiling: the longest wait, what random() → 1 gives; half of it at random() = 0.5; 0 at random() = 0.
    const table: [number, number][] = [
      [0, 1_000],
      [1, 2_000],
      [2, 4_000],
      [3, 8_000],
      [4, 16_000],
      [5, 32_000],
      [6, 60_000],
      [7, 60_000],
      [20, 60_000],
    ];
    for (const [n, ceiling] of table) {
      expect(backoffCeiling(n, options)).toBe(ceiling);
      expect(backoffDelay(n, options, always(1))).toBe(ceiling);
      expect(backoffDelay(n, options, always(0.5))).toBe(ceiling / 2);
      expect(backoffDelay(n, options, always(0))).toBe(0);
    }
  });

  it('never waits less than the floor, whatever the jitter picks', () => {
    const options: BackoffOptions = { baseMs: 250, maxMs: 10_000, floorMs: 100 };
    expect(backoffDelay(0, options, always(0))).toBe(100);
    expect(backoffDelay(0, options, always(0.2))).toBe(100);
    expect(backoffDelay(0, options, always(0.8))).toBe(200);
    expect(backoffDelay(3, options, always(0.25))).toBe(500);
  });

  it('stays finite and a number far out, and for a base of 0', () => {
    expect(backoffCeiling(5_000, { baseMs: 5_000, maxMs: 3_600_000 })).toBe(3_600_000);
    expect(backoffCeiling(5_000, { baseMs: 0, maxMs: 1_000 })).toBe(0);
    expect(backoffCeiling(-1, { baseMs: 200, maxMs: 1_000 })).toBe(200);
  });

  it('honours Retry-After as the shortest wait, read as seconds or an HTTP date', () => {
    const options: BackoffOptions = { baseMs: 200, maxMs: 5_000 };
    expect(retryDelay(0, options, 3_000, always(1))).toBe(3_000);
    expect(retryDelay(4, options, 1_000, always(1))).toBe(3_200);
    expect(retryDelay(0, options, undefined, always(0.5))).toBe(100);
    expect(retryAfterMs('7')).toBe(7_000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

/**
 * Each caller's settings (its defaults) and the n its first retry passes; the page
 * docs/internals/backoff.md shows the table rendered here for each, so a changed default
 * changes the page in the same commit.
 */
interface Caller {
  name: string;
  options: BackoffOptions;
  /** n passed for the first wait. */
  firstN: number;
  /** Waits shown. */
  waits: number;
  jitter: boolean;
}

const callers: Caller[] = [
  { name: 'partner reads', options: { baseMs: 200, maxMs: 5_000 }, firstN: 0, waits: 3, jitter: true },
  { name: 'payment sends', options: { baseMs: 200, maxMs: 5_000 }, firstN: 0, waits: 2, jitter: true },
  { name: 'batch row retries', options: { baseMs: 1_000, maxMs: 60_000 }, firstN: 0, waits: 5, jitter: true },
  { name: 'batch row writes', options: { baseMs: 200, maxMs: 3_200 }, firstN: 1, waits: 3, jitter: true },
  { name: 'worker polls', options: { baseMs: 500, maxMs: 30_000, floorMs: 500 }, firstN: 0, waits: 8, jitter: true },
  { name: 'breaker probes', options: { baseMs: 1_000, maxMs: 30_000, floorMs: 1_000 }, firstN: 1, waits: 6, jitter: true },
  { name: 'event delivery', options: { baseMs: 5_000, maxMs: 3_600_000 }, firstN: 0, waits: 12, jitter: true },
  { name: 'event listener', options: reconnectBackoff, firstN: 0, waits: 8, jitter: true },
  { name: 'webhook intake', options: { baseMs: 200, maxMs: 2_000, floorMs: 50 }, firstN: 0, waits: 3, jitter: true },
  { name: 'transactions', options: TRANSACTION_BACKOFF, firstN: 0, waits: 2, jitter: true },
  { name: 'row read-backs', options: { baseMs: 2_000, maxMs: 60_000 }, firstN: 0, waits: 7, jitter: false },
  { name: 'payment read-backs', options: { baseMs: 5_000, maxMs: 300_000 }, firstN: 1, waits: 7, jitter: false },
  { name: 'sandbox webhooks', options: { baseMs: 500, maxMs: Infinity }, firstN: 0, waits: 7, jitter: false },
];

/** 250 ms, 2.5 s, 1.5 min, 1 h: what a reader compares. */
function duration(ms: number): string {
  const trim = (value: number) => String(Number(value.toFixed(2)));
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${trim(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${trim(ms / 60_000)} min`;
  return `${trim(ms / 3_600_000)} h`;
}

/** A caller's table: its waits, the range each is picked from, and the longest they add up to. */
function scheduleTable(caller: Caller): string {
  const lines = ['| Wait | n | Picked in | At most, in all |', '|---|---|---|---|'];
  let total = 0;
  for (let i = 0; i < caller.waits; i++) {
    const n = caller.firstN + i;
    const ceiling = backoffCeiling(n, caller.options);
    const longest = Math.max(caller.options.floorMs ?? 0, ceiling);
    total += longest;
    const range = caller.jitter ? `${duration(caller.options.floorMs ?? 0)} – ${duration(longest)}` : `${duration(ceiling)} (no jitter)`;
    lines.push(`| ${i + 1} | ${n} | ${range} | ${duration(total)} |`);
  }
  return lines.join('\n');
}

describe('docs/internals/backoff.md', () => {
  const page = readFileSync(fileURLToPath(new URL('../../docs/internals/backoff.md', import.meta.url)), 'utf8');

  it.each(callers.map((caller) => [caller.name, caller] as const))("shows %s' table as the formula gives it", (name, caller) => {
    const section = page.split(/^### /m).find((part) => part.startsWith(name));
    expect(section, `a "### ${name}" section`).toBeDefined();
    expect(section, `### ${name} in docs/internals/backoff.md should hold:\n${scheduleTable(caller)}`).toContain(scheduleTable(caller));
  });
});

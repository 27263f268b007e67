import { describe, expect, it } from 'vitest';
import { batchStates, pauseReasons } from '../../../src/batch/states/batch-states.ts';
import { waitOf } from '../../../src/batch/lifecycle/batch-waiting.ts';
import { amountInWords } from '../../../src/money/money-text.ts';
import { Prisma } from '../../../src/db/generated/client.ts';

/**
 * Issue 29, finding 4: the funds messages a person reads on the page and in the CLI write
 * amounts grouped, never ISO 8601 times.
 */
describe('funds messages', () => {
  it('write amounts grouped by thousands, from minor units, never through a float', () => {
    expect(amountInWords(4659473836n, 'RUB')).toBe('46,594,738.36 RUB');
    expect(amountInWords(99_999_999_999_999_999n, 'RUB')).toBe('999,999,999,999,999.99 RUB');
    expect(amountInWords(5n, 'RUB')).toBe('0.05 RUB');
    expect(amountInWords(-123456n, 'RUB')).toBe('-1,234.56 RUB');
  });

  // When it is read again is a time of its own (nextCheckAt), which the page and the CLI show in
  // the reader's time; the words say no time, so they never go stale (the reads change).
  it('a batch paused for funds says what is short in words, and when the balance is read again as a time', () => {
    const wait = waitOf(
      {
        status: batchStates.paused,
        pauseReason: pauseReasons.funds,
        pausedAt: new Date('2026-11-27T04:30:00.000Z'),
        pausedBy: null,
        shortfall: new Prisma.Decimal('46594738.36'),
        fundsCheckAt: new Date('2026-11-27T04:32:27.003Z'),
      },
      null,
    );
    expect(wait).toMatchObject({
      reason: 'FUNDS',
      shortfall: '46594738.36',
      waitingFor:
        'the balance to cover the rows left and their commission (46,594,738.36 RUB short, read again by itself), or a person to resume it',
      nextCheckAt: new Date('2026-11-27T04:32:27.003Z'),
    });
  });
});

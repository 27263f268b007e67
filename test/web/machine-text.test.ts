import { describe, expect, it } from 'vitest';
import { machineText } from '../support/browser.ts';

/**
 * The check every page step makes (step() in test/support/browser.ts) on the page's visible
 * text: it must catch the machine text a person should never read, and pass what the page
 * writes for people, in English and in Russian.
 */
describe('machine text on the page', () => {
  it('finds ISO times and days, enum names and amounts as the API writes them', () => {
    const found = (text: string) => machineText(text).map((hit) => hit.split(' in ')[0]);
    expect(found('uploaded 2026-11-27T04:32:00.000Z')).toEqual(['2026-11-27T04:32:00.000Z']);
    expect(found('repeats line 3 of batch b4f1 (Completed, 2026-11-27): held back')).toEqual(['2026-11-27']);
    expect(found('Status: COMPLETED_WITH_FAILURES')).toEqual(['COMPLETED_WITH_FAILURES']);
    expect(found('row NEEDS_REVIEW, partner THROTTLED')).toEqual(['NEEDS_REVIEW', 'THROTTLED']);
    expect(found('short by 46950.60 RUB')).toEqual(['46950.60 RUB']);
    expect(found('short by 46,950.60 RUB')).toEqual(['46,950.60 RUB']);
    expect(found('700000.00 is outside the limits 10.00–₽1,000,000.00')).toEqual(['10.00–']);
    expect(found('The gateway refused: ₽51,869.62 short: … approve with ignoreBalance to start anyway BATCH_INSUFFICIENT_FUNDS')).toEqual([
      'BATCH_INSUFFICIENT_FUNDS',
      'ignoreBalance',
    ]);
    expect(found('the batch has errors; approve with validRowsOnly, or includeHeld')).toEqual(['validRowsOnly', 'includeHeld']);
  });

  it('passes what the page writes for people', () => {
    expect(machineText('Start anyway · Approve valid rows only · ignore the balance · Pay the held rows too')).toEqual([]);
    expect(
      machineText(
        'Completed with failures · 27 Nov 2026, 04:32:00 · ₽46,950.60 · ₽10.00–₽1,000,000.00 · write 1500.00 in the file · payroll-2026-11-27.csv · IVAN · EMP-010',
      ),
    ).toEqual([]);
    expect(machineText('Завершён с ошибками · 27 нояб. 2026 г., 04:32:00 · 46 950,60 ₽ · отложено 1 500,00 ₽')).toEqual([]);
  });
});

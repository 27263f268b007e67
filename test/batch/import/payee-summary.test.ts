import { describe, expect, it } from 'vitest';
import { payeeMarksText } from '../../../src/cli/batch/batch-view.ts';

/** The CLI's import summary counts the marks in words (docs/guide/bulk-payouts.md). */
describe('the CLI summary of payee marks', () => {
  it('counts new payees and changed accounts with the day, and says nothing for a file without payees', () => {
    const text = payeeMarksText({ newPayees: 3, changedAccounts: 1, knownPayees: 0, changedSince: '2026-10-27T12:00:00.000Z' });
    expect(text).toMatch(/^ 3 new payees, 1 account changed since (27 Oct|Oct 27) \(held\)\.$/);
    expect(payeeMarksText({ newPayees: 1, changedAccounts: 0, knownPayees: 2, changedSince: null })).toBe(' 1 new payee, 2 known payees.');
    expect(payeeMarksText({ newPayees: 0, changedAccounts: 0, knownPayees: 0, changedSince: null })).toBe('');
  });
});

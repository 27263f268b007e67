import { describe, expect, it } from 'vitest';
import { outcomeWords } from '../../../src/batch/export/outcome-words.ts';

/** Issue 38 §3 finding 7: results.csv gave statuses and BILLING_DECLINED with no words for the person reading it. */
describe('results.csv outcome in words', () => {
  it('says each status, and why a failed payment was not paid', () => {
    expect(outcomeWords('COMPLETED', null)).toBe('paid');
    expect(outcomeWords('FAILED', 'BILLING_DECLINED')).toBe('not paid: the recipient’s bank or the provider declined it');
    expect(outcomeWords('FAILED', 'payout.some-new-code')).toBe('not paid');
    expect(outcomeWords('DUPLICATE', 'row.already-paid')).toBe('held: not paid unless the approver includes it');
  });
});

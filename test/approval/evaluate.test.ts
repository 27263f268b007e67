import { describe, expect, it } from 'vitest';
import { evaluate, type GivenApproval, type Subject } from '../../src/approval/evaluate.ts';
import { parsePolicy } from '../../src/approval/policy-file.ts';
import { defaultPolicy } from '../../src/approval/policy.ts';

/** The example: up to 1,000,000 one approver; above it two; above 10,000,000 two including an admin. */
const TIERS = `{
  "batch": {
    "approvers": 1,
    "byTotal": [
      { "above": "1000000.00", "approvers": 2 },
      { "above": "10000000.00", "approvers": 2, "including": ["admin"] }
    ],
    "byLargestRow": [{ "above": "500000", "approvers": 2 }]
  },
  "payment": { "approvers": 0, "byAmount": [{ "above": "50000", "approvers": 1 }, { "above": "1000000", "approvers": 2, "including": ["admin"] }] }
}`;
const policy = parsePolicy(TIERS, 'policy.json', 0n).policy!;
const now = new Date('2026-11-27T12:00:00Z');
const DAY = 24 * 3600_000;
const context = {
  excluded: 'key:uploader',
  now,
  lapseMs: 7 * DAY,
  choice: { rowSet: 'rows-a', payAt: null },
  extraForChangedAccounts: false,
};
const batch = (total: string, largest = '1000.00', changedAccountRows = 0): Subject => ({
  kind: 'batch',
  totalMinor: BigInt(total.replace('.', '')),
  largestRowMinor: BigInt(largest.replace('.', '')),
  changedAccountRows,
});
const by = (actor: string, role = 'approver', hoursAgo = 1, rowSet = 'rows-a', payAt: Date | null = null): GivenApproval => ({
  actor: `key:${actor}`,
  role,
  at: new Date(now.getTime() - hoursAgo * 3600_000),
  rowSet,
  payAt,
});

describe('the tier table', () => {
  it('needs one approver up to 1,000,000 (the tier starts strictly above)', () => {
    expect(evaluate(policy, batch('1000000.00'), [], context)).toMatchObject({ met: false, needed: { approvers: 1, including: [] } });
    expect(evaluate(policy, batch('1000000.00'), [by('april')], context).met).toBe(true);
  });

  it('needs two distinct approvers above 1,000,000', () => {
    const one = evaluate(policy, batch('1000000.01'), [by('april')], context);
    expect(one).toMatchObject({ met: false, required: { approvers: 2 }, needed: { approvers: 1, including: [] } });
    expect(evaluate(policy, batch('1000000.01'), [by('april'), by('boris')], context).met).toBe(true);
  });

  it('needs two including an admin above 10,000,000', () => {
    const two = evaluate(policy, batch('10000000.01'), [by('april'), by('boris')], context);
    expect(two).toMatchObject({ met: false, needed: { approvers: 1, including: ['admin'] } });
    expect(evaluate(policy, batch('10000000.01'), [by('april'), by('root', 'admin')], context).met).toBe(true);
    // An admin alone is one person, not two.
    expect(evaluate(policy, batch('10000000.01'), [by('root', 'admin')], context)).toMatchObject({
      met: false,
      needed: { approvers: 1, including: [] },
    });
  });

  it('reads the largest row too: a small total with one large row needs two', () => {
    expect(evaluate(policy, batch('600000.00', '500000.01'), [by('april')], context)).toMatchObject({
      met: false,
      needed: { approvers: 1 },
    });
  });

  it('never counts the uploader', () => {
    const e = evaluate(policy, batch('100.00'), [by('uploader')], context);
    expect(e).toMatchObject({ met: false, counted: [], needed: { approvers: 1 } });
    // In single-user mode nobody is excluded.
    expect(evaluate(policy, batch('100.00'), [by('uploader')], { ...context, excluded: null }).met).toBe(true);
  });

  it('counts an approver once, however often they approve', () => {
    const e = evaluate(
      policy,
      batch('2000000.00'),
      [by('april', 'approver', 3), by('april', 'approver', 2), by('april', 'approver', 1)],
      context,
    );
    expect(e).toMatchObject({ met: false, needed: { approvers: 1 } });
    expect(e.counted).toHaveLength(1);
  });

  it('lets approvals lapse after the lapse time, and says which did', () => {
    const e = evaluate(policy, batch('2000000.00'), [by('april', 'approver', 7 * 24), by('boris', 'approver', 7 * 24 - 1)], context);
    expect(e).toMatchObject({ met: false, needed: { approvers: 1 } });
    expect(e.counted.map((a) => a.actor)).toEqual(['key:boris']);
    expect(e.lapsed.map((a) => a.actor)).toEqual(['key:april']);
    // Approving again counts anew.
    expect(
      evaluate(policy, batch('2000000.00'), [by('april', 'approver', 7 * 24), by('boris', 'approver', 1), by('april')], context).met,
    ).toBe(true);
  });

  it('does not count an approval of another row set (held rows included or not, rows paid again)', () => {
    expect(evaluate(policy, batch('100.00'), [by('april', 'approver', 1, 'rows-b')], context)).toMatchObject({ met: false, counted: [] });
  });

  it('counts approvals together only when they agree on when to pay too (issue 38: a pay date was dropped)', () => {
    const evening = new Date('2026-11-27T18:00:00Z');
    const later = { ...context, choice: { rowSet: 'rows-a', payAt: evening } };
    // April chose 18:00; Boris approving "now" is another choice: neither counts with the other.
    expect(evaluate(policy, batch('1000000.01'), [by('april', 'approver', 2, 'rows-a', evening), by('boris')], later)).toMatchObject({
      met: false,
      counted: [{ actor: 'key:april' }],
    });
    expect(evaluate(policy, batch('1000000.01'), [by('april', 'approver', 2, 'rows-a', evening), by('boris')], context)).toMatchObject({
      met: false,
      counted: [{ actor: 'key:boris' }],
    });
    const same = by('boris', 'approver', 1, 'rows-a', new Date(evening.getTime()));
    expect(evaluate(policy, batch('1000000.01'), [by('april', 'approver', 2, 'rows-a', evening), same], later).met).toBe(true);
  });

  it('adds one approver for changed accounts only when the setting is on and such rows are paid', () => {
    expect(evaluate(policy, batch('100.00', '100.00', 3), [by('april')], context).met).toBe(true);
    const on = { ...context, extraForChangedAccounts: true };
    expect(evaluate(policy, batch('100.00', '100.00', 0), [by('april')], on).met).toBe(true);
    expect(evaluate(policy, batch('100.00', '100.00', 1), [by('april')], on)).toMatchObject({
      met: false,
      required: { approvers: 2 },
      needed: { approvers: 1 },
    });
    expect(evaluate(policy, batch('2000000.00', '100.00', 1), [by('april'), by('boris')], on)).toMatchObject({
      met: false,
      required: { approvers: 3 },
    });
  });
});

describe('single payments', () => {
  const creator = { ...context, excluded: 'key:creator' };
  const payment = (amount: string, changedAccount = false): Subject => ({
    kind: 'payment',
    amountMinor: BigInt(amount.replace('.', '')),
    changedAccount,
  });
  it('needs nobody up to the first tier, one other key above it, two with an admin above the top', () => {
    expect(evaluate(policy, payment('50000.00'), [], creator).met).toBe(true);
    expect(evaluate(policy, payment('50000.01'), [by('creator', 'operator')], creator)).toMatchObject({
      met: false,
      needed: { approvers: 1 },
    });
    expect(evaluate(policy, payment('50000.01'), [by('olga', 'operator')], creator).met).toBe(true);
    expect(evaluate(policy, payment('1000000.01'), [by('olga', 'operator'), by('petr', 'operator')], creator)).toMatchObject({
      met: false,
      needed: { approvers: 1, including: ['admin'] },
    });
  });

  it('adds one key for a changed account only when the setting is on', () => {
    expect(evaluate(policy, payment('100.00', true), [], creator).met).toBe(true);
    const on = { ...creator, extraForChangedAccounts: true };
    expect(evaluate(policy, payment('100.00'), [], on).met).toBe(true);
    expect(evaluate(policy, payment('100.00', true), [by('creator', 'operator')], on)).toMatchObject({
      met: false,
      required: { approvers: 1 },
      needed: { approvers: 1 },
    });
    expect(evaluate(policy, payment('100.00', true), [by('olga', 'operator')], on).met).toBe(true);
    expect(evaluate(policy, payment('50000.01', true), [by('olga', 'operator')], on)).toMatchObject({
      met: false,
      required: { approvers: 2 },
    });
  });
});

describe('the default policy is today’s rule', () => {
  const today = defaultPolicy(100000n);
  it('one approver other than the uploader for any batch', () => {
    expect(evaluate(today, batch('99999999.00', '99999999.00'), [by('april')], context).met).toBe(true);
    expect(evaluate(today, batch('1.00'), [by('uploader')], context).met).toBe(false);
  });
  it('a single payment above PAYMENT_SECOND_PERSON_ABOVE needs a second key', () => {
    const creator = { ...context, excluded: 'key:creator' };
    expect(evaluate(today, { kind: 'payment', amountMinor: 100000n, changedAccount: false }, [], creator).met).toBe(true);
    expect(
      evaluate(today, { kind: 'payment', amountMinor: 100001n, changedAccount: false }, [by('creator', 'operator')], creator).met,
    ).toBe(false);
    expect(evaluate(today, { kind: 'payment', amountMinor: 100001n, changedAccount: false }, [by('bob', 'operator')], creator).met).toBe(
      true,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { approvalsText } from '../../src/cli/batch/approvals-text.ts';
import { timeText } from '../../src/cli/batch/words.ts';

const at = '2026-11-27T11:05:00.000Z';
const needed = (count: number, required: number, roles: string[] = [], lapsed: Array<{ by: string; at: string }> = []) => ({
  count,
  required,
  roles,
  lapsed,
});

describe('`payout batch approve` and `show`: approvals in words', () => {
  it('says how many of how many, who and when, and what is still needed', () => {
    expect(approvalsText({ approvals: [{ by: 'key:april', role: 'APPROVER', at }], approvalsNeeded: needed(1, 2, ['ADMIN']) })).toBe(
      `1 of 2 approvals: key:april at ${timeText(at)}; one more needed (admin)`,
    );
    expect(approvalsText({ approvals: [], approvalsNeeded: needed(2, 2) })).toBe('0 of 2 approvals; two needed');
    // Issue 38: "two needed (admin)" was read as two admins.
    expect(approvalsText({ approvals: [], approvalsNeeded: needed(2, 2, ['ADMIN']) })).toBe(
      '0 of 2 approvals; two needed, including admin',
    );
  });

  it('names lapsed approvals, which no longer count', () => {
    expect(approvalsText({ approvals: [], approvalsNeeded: needed(1, 1, [], [{ by: 'key:april', at }]) })).toBe(
      `0 of 1 approval; one needed; lapsed, no longer counted: key:april at ${timeText(at)}`,
    );
  });

  it('lists who approved a batch that started, and nothing for one that awaits none', () => {
    expect(
      approvalsText({
        approvals: [
          { by: 'key:april', role: 'APPROVER', at },
          { by: 'key:root', role: 'ADMIN', at },
        ],
        approvalsNeeded: null,
      }),
    ).toBe(`approved by key:april at ${timeText(at)}, key:root at ${timeText(at)}`);
    expect(approvalsText({ approvals: [], approvalsNeeded: null })).toBeNull();
  });
});

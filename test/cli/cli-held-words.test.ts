import { describe, expect, it } from 'vitest';
import { heldText, statusText, statusWord, type BatchView } from '../../src/cli/batch/batch-view.ts';

/**
 * Issue 38, section 3 findings 1 and 4 as the operator met them: `batch list` showed an
 * empty HELD column for a row held for a changed account, `batch status` said the valid
 * rows' total as if all were paid and the row as DUPLICATE, and a file with row errors was
 * REJECTED where the page says it "has row errors".
 */
const batch: BatchView = {
  id: 'b0123456789a',
  name: 'payroll-payees-next.csv',
  fileName: 'payroll-payees-next.csv',
  status: 'VALIDATED',
  rowCount: 3,
  validCount: 3,
  invalidCount: 0,
  warningCount: 1,
  totalAmount: { value: '35500.50', currency: 'RUB' },
  payableCount: 2,
  payableAmount: { value: '23000.00' },
  heldCount: 0,
  heldAmount: { value: '0.00' },
  forced: false,
  validRowsOnly: false,
  includeHeld: false,
  changedAccountCount: 1,
  changedAccountAmount: { value: '12500.50' },
  includeChangedAccounts: false,
  payeeMarks: { newPayees: 0, changedAccounts: 1, knownPayees: 2, changedSince: null },
  uploadedBy: 'local',
  approvedBy: null,
  createdAt: '2026-11-28T09:00:00Z',
  approvedAt: null,
  payAt: null,
  startedAt: null,
  finishedAt: null,
  counts: [
    { status: 'PENDING', count: 2, amount: '23000.00' },
    { status: 'DUPLICATE', count: 1, amount: '12500.50' },
  ],
  throughput: null,
  secondsLeft: null,
  waiting: null,
  approvals: [],
  approvalsNeeded: null,
  pendingApproval: null,
};

describe('the CLI counts held rows by why, and says "has row errors"', () => {
  it('counts a row held for a changed account in the HELD column, and not once the approver includes it', () => {
    expect(heldText(batch)).toMatch(/^1 account changed \(.+12,500\.50\)$/);
    expect(heldText({ ...batch, heldCount: 2, heldAmount: { value: '1000.00' } })).toMatch(/^2 repeats \(.+1,000\.00\), 1 account changed/);
    expect(heldText({ ...batch, includeChangedAccounts: true })).toBe('');
  });

  it('says what status pays, and the held row as held, not the valid rows’ total and DUPLICATE', () => {
    const text = statusText(batch);
    expect(text).toMatch(
      /to pay .+23,000\.00 \(2 rows\)\. Held, not paid unless the approver includes them: 1 account changed \(.+12,500\.50\)\./,
    );
    expect(text).not.toMatch(/valid rows total/);
    expect(text).not.toMatch(/DUPLICATE/);
    expect(text).toMatch(/^HELD\s+1\s/m);
  });

  it('calls a file whose valid rows can be paid "has row errors", as the page does; one with none is rejected', () => {
    expect(statusWord({ status: 'REJECTED', validCount: 2 })).toBe('HAS ROW ERRORS');
    expect(statusWord({ status: 'REJECTED', validCount: 0 })).toBe('REJECTED');
    expect(statusText({ ...batch, status: 'REJECTED' })).toMatch(/^Batch b0123456789a \(payroll-payees-next\.csv\): HAS ROW ERRORS\./);
  });
});

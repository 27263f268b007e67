import { describe, expect, it } from 'vitest';
import { approvalRefusal, batchActions, type ActionFacts, type BatchAction } from '../../../src/batch/states/batch-actions.ts';
import { BatchStatus } from '../../../src/db/generated/enums.ts';

/**
 * The actions read from the lifecycle table against the rules written out here state by state
 * (those the page and the CLI kept before they asked it, with what a review found they missed:
 * a batch being read can be discarded, a file with errors of its own offers no approval of its
 * valid rows): the same answer for every state and every fact that weighs.
 */
function before(b: ActionFacts): BatchAction[] {
  const actions: BatchAction[] = [];
  if (b.status === 'VALIDATED') actions.push('approve');
  const validRows = b.status === 'REJECTED' && b.validCount > 0 && b.fileErrors === 0;
  if (validRows) actions.push('approve-valid-rows');
  if (b.status === 'VALIDATING' || b.status === 'VALIDATED' || validRows) actions.push('discard');
  if (b.status === 'RUNNING') actions.push('pause');
  if (b.status === 'PAUSED') actions.push('resume');
  if (b.status === 'SCHEDULED') actions.push('reschedule');
  if (b.status === 'RUNNING' || b.status === 'PAUSED' || b.status === 'SCHEDULED') actions.push('cancel');
  if (b.status === 'COMPLETED_WITH_FAILURES' && b.retryableRows > 0) actions.push('retry');
  if (b.dismissedAt === null && b.approvedAt === null && (b.status === 'REJECTED' || b.status === 'CANCELLED')) actions.push('dismiss');
  return actions;
}

const cases: ActionFacts[] = Object.values(BatchStatus).flatMap((status) =>
  [0, 3].flatMap((validCount) =>
    [null, new Date()].flatMap((approvedAt) =>
      [null, new Date()].flatMap((dismissedAt) =>
        [0, 2].flatMap((retryableRows) =>
          [0, 1].map((fileErrors) => ({ status, validCount, approvedAt, dismissedAt, retryableRows, fileErrors })),
        ),
      ),
    ),
  ),
);

describe("a batch's actions", () => {
  it('are what the page allowed before, for every state', () => {
    expect(cases.length).toBe(Object.values(BatchStatus).length * 32);
    for (const facts of cases) expect(batchActions(facts), JSON.stringify(facts)).toEqual(before(facts));
  });

  it("refuse an approval as the CLI's approve-valid-rows rule did", () => {
    for (const { status, validCount, fileErrors } of cases)
      for (const validOnly of [false, true]) {
        const refused = approvalRefusal({ status, validCount, fileErrors }, validOnly);
        const cliRefused = status === 'REJECTED' && !(validOnly && validCount > 0 && fileErrors === 0);
        expect(refused === 'batch.rejected' || refused === 'batch.file-errors' || refused === 'batch.no-valid-rows').toBe(cliRefused);
      }
  });
});

import { describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir, type PayoutResult } from '../support/cli-process.ts';

/**
 * Issue 38, section 2, finding 6: a refusal names only a command that would work, and comes
 * before any confirmation. `discard` of a finished batch sent people to `cancel`, which
 * refused in turn; `approve` of a completed batch asked for --yes, then refused.
 */
const { payout } = cliInFreshDataDir('payout-cli-next-step-', { per: 'file' });

/** The `payout …` commands a message names, with the batch's id in them. */
const named = (text: string, id: string): string[][] =>
  [...text.matchAll(/payout (batch \w+ [^\s;:,()]+(?: -o \S+)?)/g)].map((m) => m[1]!.split(' ')).filter((words) => words.includes(id));

const lastError = (result: PayoutResult) =>
  (JSON.parse(result.stderr.trim().split('\n').at(-1)!) as { error: Record<string, unknown> }).error;

describe('refusals of a finished batch (COMPLETED_WITH_FAILURES)', () => {
  let batchId = '';

  it(
    'is paid first: 7 rows paid, 3 failed by their test values',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes', '--json']);
      expect(run.code, run.stderr).toBe(4);
      batchId = (JSON.parse(run.stdout) as { batch: { id: string; status: string } }).batch.id;
      expect(batchId).toMatch(/^b[0-9a-f]+$/);
    },
    budget(1),
  );

  it(
    'discard says it has ended and names no cancel; every command it names works',
    async () => {
      const discard = await payout(['batch', 'discard', batchId]);
      expect(discard.code).toBe(1);
      expect(discard.stderr).toContain(`batch ${batchId} is COMPLETED_WITH_FAILURES: it has ended`);
      expect(discard.stderr).not.toContain('payout batch cancel');
      const steps = named(discard.stderr, batchId);
      expect(steps.map((words) => words[1])).toEqual(['retry', 'export']);
      // export, run here; retry pays the failed rows again (they fail again by their test values): exit 4, not a refusal.
      for (const words of steps) {
        const ran = await payout([...words.slice(0, 3), '--json']);
        expect([0, 4], `${words.join(' ')}: ${ran.stderr}`).toContain(ran.code);
      }
    },
    budget(4),
  );

  it(
    'cancel is refused the same way, naming what works',
    async () => {
      const cancel = await payout(['batch', 'cancel', batchId, '--json']);
      expect(cancel.code).toBe(1);
      expect(lastError(cancel)).toMatchObject({ code: 'batch.not-cancellable', exitCode: 1 });
      expect(String(lastError(cancel).message)).toContain(`payout batch export ${batchId}`);
    },
    budget(1),
  );

  it(
    'approve refuses before asking: no --yes needed to learn it cannot be approved',
    async () => {
      // No terminal and no --yes: before, this asked for --yes ("no terminal to confirm on"), exit 2.
      const approve = await payout(['batch', 'approve', batchId]);
      expect(approve.code, approve.stderr).toBe(1);
      expect(approve.stderr).toContain(`batch ${batchId} is COMPLETED_WITH_FAILURES: it has ended, nothing is left to approve`);
      expect(approve.stderr).not.toMatch(/--yes|confirm/);
      const json = await payout(['batch', 'approve', batchId, '--json']);
      expect(json.code).toBe(1);
      expect(lastError(json)).toMatchObject({ code: 'batch.not-approvable', exitCode: 1 });
    },
    budget(2),
  );
});

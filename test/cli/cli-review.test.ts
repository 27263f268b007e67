import { describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir } from '../support/cli-process.ts';

/**
 * `payout batch review` as a user runs it (its own process, the built dist/, the embedded
 * database and sandbox in a fresh DATA_DIR): rows left NEEDS_REVIEW are read again and
 * settled, what stays unknown is marked with a reason. Kept apart from test/cli/cli.test.ts,
 * which is slow already.
 */
const { payout, withDatabase } = cliInFreshDataDir('payout-cli-review-');

describe('payout batch review', () => {
  it(
    'settles a row the partner shows paid, leaves one it cannot settle (exit 4), and marks that one with a reason',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes']);
      expect(run.code, run.stderr).toBe(4);
      const { batchId, lines } = await withDatabase(async ({ prisma }) => {
        const batch = await prisma.batch.findFirstOrThrow();
        const paid = await prisma.batchItem.findMany({
          where: { batchId: batch.id, status: 'COMPLETED' },
          orderBy: { line: 'asc' },
          take: 2,
        });
        // As the worker leaves rows whose outcome it could not settle.
        await prisma.batchItem.updateMany({
          where: { id: { in: paid.map((row) => row.id) } },
          data: { status: 'NEEDS_REVIEW', errorCode: 'payout.payment.not-found', errorMessage: 'could not be settled' },
        });
        return { batchId: batch.id, lines: paid.map((row) => ({ line: row.line, paymentId: row.paymentId })) };
      });
      const [settles, stays] = lines as [{ line: number; paymentId: string }, { line: number; paymentId: string }];
      // The partner holds the second one CREATED: nothing a read can settle.
      const altered = await payout(['sandbox', 'alter', stays.paymentId, '--status', 'CREATED']);
      expect(altered.code).toBe(0);

      const review = await payout(['batch', 'review', batchId]);
      // Only the notice that no gateway was running, so the command served the API itself.
      expect(review.stderr).toMatch(/^No gateway answers at \S+; this command opens the embedded database in .+ itself\.\n$/);
      expect(review.code, review.stderr).toBe(4);
      expect(review.stdout).toMatch(new RegExp(`^${settles.line}\\s+${settles.paymentId}\\s+paid\\s+COMPLETED`, 'm'));
      expect(review.stdout).toMatch(new RegExp(`^${stays.line}\\s+${stays.paymentId}\\s+unknown\\s+NEEDS_REVIEW`, 'm'));
      expect(review.stdout).toContain('1 settled, 1 still NEEDS_REVIEW');
      expect(review.stdout).toContain(`payout batch review ${batchId} --line N --mark`);

      const noReason = await payout(['batch', 'review', batchId, '--line', String(stays.line), '--mark', 'do-not-pay']);
      expect(noReason.code).toBe(2);
      expect(noReason.stderr).toContain('--reason');

      const marked = await payout([
        'batch',
        'review',
        batchId,
        '--line',
        String(stays.line),
        '--mark',
        'do-not-pay',
        '--reason',
        'paid by hand at the bank',
      ]);
      expect(marked.stderr).toMatch(/^No gateway answers at [^\n]+\n$/);
      expect(marked.code).toBe(0);
      expect(marked.stdout).toContain(`Line ${stays.line} (${stays.paymentId}) is now CANCELLED`);

      await withDatabase(async ({ prisma }) => {
        const rows = await prisma.batchItem.findMany({
          where: { batchId, line: { in: [settles.line, stays.line] } },
          orderBy: { line: 'asc' },
        });
        expect(rows.map((row) => [row.status, row.errorCode])).toEqual([
          ['COMPLETED', null],
          ['CANCELLED', 'review.marked-do-not-pay'],
        ]);
        const trail = await prisma.auditEvent.findMany({
          where: { batchId, action: { in: ['batch.review', 'batch.item.mark'] } },
          orderBy: { id: 'asc' },
        });
        expect(trail.map((event) => [event.action, event.actor, (event.detail as Record<string, unknown>).line])).toEqual([
          ['batch.review', 'local', settles.line],
          ['batch.item.mark', 'local', stays.line],
        ]);
        expect(trail[1]!.detail).toMatchObject({ mark: 'do-not-pay', reason: 'paid by hand at the bank' });
      });
    },
    budget(6),
  );
});

import { describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir, interruptedRetryOfTwoFailedRows } from '../support/cli-process.ts';

/**
 * `payout batch pause` and `resume` as a user runs them (its own process, the built dist/,
 * the embedded database and sandbox in a fresh DATA_DIR), on a batch a run left RUNNING
 * with rows to pay. Kept apart from test/cli/cli.test.ts, which is slow already.
 */
const { payout, withDatabase } = cliInFreshDataDir('payout-cli-pause-');

describe('payout batch pause and resume', () => {
  it(
    'pauses a running batch (status says who and what it waits for), refuses to pause it twice, and resume pays the rows left',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes']);
      expect(run.code).toBe(4);
      const { batchId, lines } = await withDatabase(interruptedRetryOfTwoFailedRows);
      expect(lines).toHaveLength(2);

      const paused = await payout(['batch', 'pause', batchId]);
      // Nothing but the one notice that no gateway was running, so the command served the API itself.
      expect(paused.stderr).toMatch(
        /^No gateway answers at http:\/\/127\.0\.0\.1:\d+; this command opens the embedded database in \S+ itself\.\n$/,
      );
      expect(paused.code).toBe(0);
      expect(paused.stdout).toMatch(/waiting since [^:\n]+\d{1,2}:\d\d:\d\d[^:\n]*: a person to resume it/);
      expect(paused.stdout).toContain(`payout batch resume ${batchId}`);
      const again = await payout(['batch', 'pause', batchId]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('a PAUSED batch cannot be paused');

      const resumed = await payout(['batch', 'resume', batchId]);
      expect(resumed.stdout).toContain(`Batch ${batchId} resumed (it was paused by local)`);
      expect(resumed.code).toBe(4);
      await withDatabase(async ({ prisma }) => {
        // Paid again once resumed: the sandbox fails these recipients every time, so FAILED, under attempt 2.
        const rows = await prisma.batchItem.findMany({ where: { batchId, line: { in: lines } }, orderBy: { line: 'asc' } });
        expect(rows.map((row) => [row.status, row.attempt])).toEqual([
          ['FAILED', 2],
          ['FAILED', 2],
        ]);
        const trail = await prisma.auditEvent.findMany({
          where: { batchId, action: { in: ['batch.pause', 'batch.resume'] } },
          orderBy: { id: 'asc' },
        });
        expect(trail.map((event) => [event.action, event.actor])).toEqual([
          ['batch.pause', 'local'],
          ['batch.resume', 'local'],
        ]);
      });
    },
    budget(5),
  );
});

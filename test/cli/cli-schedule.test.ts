import { describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir } from '../support/cli-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * `payout batch approve --pay-at`, `reschedule` and `list --scheduled` as a user runs them
 * (their own processes, the built dist/, the embedded database and sandbox), with an
 * operator's key importing and an approver's scheduling.
 */
const { payout, withDatabase } = cliInFreshDataDir('payout-cli-schedule-', {
  defaults: { GATEWAY_API_KEYS: namedApiKeysEnv({ op: 'operator', ap: 'approver' }) },
});
const as = (name: string) => ({ PAYOUT_CLI_KEY: apiKey(name) });
/** A local date and time, as a clerk types it ("2026-11-28 09:00"), hours from now in this process's zone. */
function localIn(hours: number): string {
  const at = new Date(Date.now() + hours * 3_600_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

describe('payout batch approve --pay-at', () => {
  it(
    'schedules the batch, lists it, reschedules it, refuses a time past or unreadable, and cancel ends the wait',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes'], as('op'));
      const batchId = /Batch (\S+) waits for an approver/.exec(run.stdout)?.[1];
      expect(batchId, run.stdout + run.stderr).toBeDefined();

      const approved = await payout(['batch', 'approve', batchId!, '--pay-at', localIn(3), '--yes'], as('ap'));
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout).toContain(`Batch ${batchId} is scheduled for `);
      expect(approved.stdout).toContain(`payout batch reschedule ${batchId}`);
      expect(approved.stdout).not.toMatch(/\d{4}-\d\d-\d\dT/);

      const listed = await payout(['batch', 'list', '--scheduled'], as('op'));
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(`${batchId}\\s+\\S`));

      const moved = await payout(['batch', 'reschedule', batchId!, '--pay-at', localIn(5), '--json'], as('ap'));
      expect(moved.code, moved.stderr).toBe(0);
      const movedTo = JSON.parse(moved.stdout).batch.payAt as string;
      expect(Math.abs(new Date(movedTo).getTime() - (Date.now() + 5 * 3_600_000))).toBeLessThan(120_000);

      const past = await payout(['batch', 'reschedule', batchId!, '--pay-at', localIn(-1)], as('ap'));
      expect(past.code).toBe(1);
      expect(past.stderr).toMatch(/has passed/);
      const unreadable = await payout(['batch', 'reschedule', batchId!, '--pay-at', 'next friday'], as('ap'));
      expect(unreadable.code).toBe(2);
      expect(unreadable.stderr).toContain('is not a date and time');

      const cancelled = await payout(['batch', 'cancel', batchId!], as('ap'));
      expect(cancelled.code, cancelled.stderr).toBe(0);
      await withDatabase(async ({ prisma }) => {
        const batch = await prisma.batch.findUniqueOrThrow({ where: { id: batchId! } });
        expect(batch.status).toBe('CANCELLED');
        expect(await prisma.batchItem.count({ where: { batchId: batchId!, status: { not: 'CANCELLED' } } })).toBe(0);
        const trail = await prisma.auditEvent.findMany({ where: { batchId: batchId! }, orderBy: { id: 'asc' } });
        expect(trail.map((event) => event.action)).toEqual(['batch.approve', 'batch.reschedule', 'batch.cancel']);
      });
    },
    budget(6),
  );
});

import { describe, expect, it } from 'vitest';
import { policyFile } from '../support/approval-policy.ts';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir } from '../support/cli-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * Issue 38, section 1, with the CLI as people run it (their own processes, the built dist/,
 * the embedded database and sandbox): under a two-approver policy April approves with
 * `--pay-at`; Boris reads her choice in `batch status`, is refused when he approves plainly
 * (her time was dropped before the fix, and the batch paid at once), and agrees with `--agree`:
 * the batch waits for her time and nothing is sent.
 */
const { payout, withDatabase } = cliInFreshDataDir('payout-cli-choice-', {
  defaults: {
    GATEWAY_API_KEYS: namedApiKeysEnv({ op: 'operator', april: 'approver', boris: 'approver' }),
    APPROVAL_POLICY_FILE: policyFile('{ "batch": { "approvers": 2 }, "payment": { "approvers": 0 } }'),
  },
});
const as = (name: string) => ({ PAYOUT_CLI_KEY: apiKey(name) });
/** A local date and time, as a clerk types it ("2026-11-28 09:00"), hours from now in this process's zone. */
function localIn(hours: number): string {
  const at = new Date(Date.now() + hours * 3_600_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

describe('payout batch approve: the second approver and the first one’s choice', () => {
  it(
    'shows April’s time, refuses a plain approval that would drop it, and --agree keeps it',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes'], as('op'));
      // The policy's two, not "an approver" (the walk of issue 38).
      const batchId = /Batch (\S+) waits for 2 approvers \(keys other than yours\)/.exec(run.stdout)?.[1];
      expect(batchId, run.stdout + run.stderr).toBeDefined();

      const april = await payout(['batch', 'approve', batchId!, '--pay-at', localIn(3), '--yes'], as('april'));
      expect(april.code, april.stderr).toBe(0);
      expect(april.stdout).toContain('your approval is recorded');
      expect(april.stdout).toMatch(/key:april approved paying 10 rows, .+, at .+\./);
      expect(april.stdout).toContain(`payout batch approve ${batchId} --agree`);

      const status = await payout(['batch', 'status', batchId!], as('boris'));
      expect(status.stdout).toMatch(
        new RegExp(`key:april approved paying 10 rows, .+, at .+: payout batch approve ${batchId} --agree completes it`),
      );
      const json = JSON.parse((await payout(['batch', 'status', batchId!, '--json'], as('boris'))).stdout);
      expect(json.batch.pendingApproval).toMatchObject({
        approvals: [{ by: 'key:april' }],
        rows: 10,
        includeHeld: false,
        includeChangedAccounts: false,
      });
      expect(json.batch.pendingApproval.payAt).not.toBeNull();

      const plain = await payout(['batch', 'approve', batchId!, '--yes'], as('boris'));
      expect(plain.code).toBe(1);
      expect(plain.stderr).toMatch(
        /key:april approved paying 10 rows, .+ at .+ UTC; you chose paying 10 rows, .+, as soon as the approvals are complete\. Agree to complete theirs \(--agree\), or start a new round with your choice \(--new-round\)/,
      );

      const agreed = await payout(['batch', 'approve', batchId!, '--agree', '--yes'], as('boris'));
      expect(agreed.code, agreed.stderr).toBe(0);
      expect(agreed.stdout).toContain(`Batch ${batchId} is scheduled for `);

      await withDatabase(async ({ prisma }) => {
        const batch = await prisma.batch.findUniqueOrThrow({ where: { id: batchId! } });
        expect(batch.status).toBe('SCHEDULED');
        const approvals = await prisma.approval.findMany({ where: { batchId: batchId! }, orderBy: { id: 'asc' } });
        expect(approvals.map((a) => [a.actor, a.payAt?.getTime()])).toEqual([
          ['key:april', batch.payAt!.getTime()],
          ['key:boris', batch.payAt!.getTime()],
        ]);
        expect(await prisma.payment.count()).toBe(0);
      });
    },
    budget(7),
  );
});

import { describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir } from '../support/cli-process.ts';

/**
 * `payout reconcile`'s text as a person at the terminal reads it (issue 29): the period in
 * words, both sides' totals as amounts ("₽65,846.17"), never as the API writes them
 * ("65846.17", "2026-11-27"). The --json document keeps decimal strings and ISO days.
 */
const { payout } = cliInFreshDataDir('payout-cli-reconcile-words-', { per: 'file' });

describe('payout reconcile in words', () => {
  it(
    'says the period and both sides’ totals formatted',
    async () => {
      const paid = await payout(['batch', 'run', sampleFile('payroll-1251-semicolon.csv'), '--yes']);
      expect(paid.code, paid.stderr).toBe(0);
      const run = await payout(['reconcile', '--today']);
      expect(run.code, run.stderr).toBe(0);
      const [said, ...rest] = run.stdout.split('\n');
      expect(said).toMatch(/^Reconciling [^\d-]*\d{1,2}[^\d-]+\d{4} \(UTC\) with the upstream's payment list…$/);
      const totals = rest.filter((line) => /^(upstream|gateway) /.test(line));
      expect(totals).toHaveLength(2);
      for (const line of totals) expect(line).toMatch(/^\w+\s+4\s+₽65,846\.17\s+₽[\d,]+\.\d{2}\s+4\s+₽65,846\.17$/);

      const json = await payout(['reconcile', '--today', '--json']);
      expect(JSON.parse(json.stdout).run).toMatchObject({
        upstream: { amount: '65846.17' },
        from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      });
    },
    budget(3),
  );
});

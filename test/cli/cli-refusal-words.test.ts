import { describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { budget, cliInFreshDataDir } from '../support/cli-process.ts';

/**
 * A refusal for money as the CLI prints it (issue 29, finding 9): in words, naming the
 * CLI's own flag (--ignore-balance), never the API's argument (ignoreBalance) or its code.
 * The embedded sandbox starts with 100.00 RUB, below the sample payroll.
 */
const { payout } = cliInFreshDataDir('payout-cli-refusal-', { defaults: { SANDBOX_BALANCE: '100.00' } });

describe('payout batch run refused for money', () => {
  it(
    'names --ignore-balance, not the API’s ignoreBalance, and exits 1',
    async () => {
      const run = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes']);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/: 51,869\.62 RUB short: .* Top up, or approve with --ignore-balance to start anyway/);
      expect(run.stdout + run.stderr).not.toMatch(/ignoreBalance|BATCH_INSUFFICIENT_FUNDS/);
    },
    budget(1),
  );
});

import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { cliInFreshDataDir } from '../support/cli-process.ts';

/** Generous: for a hung run only; nothing waits on it. */
const BUDGET_MS = 600_000;

/**
 * The reconciliation walk-through of docs/guide/reconciliation.md as a new user runs it: pay the sample batch,
 * change three payments in the sandbox, reconcile today: three discrepancies, exit 1.
 */
describe('payout reconcile', () => {
  /** The CLI as a user runs it, on its own embedded database and sandbox in DATA_DIR, one for the walk-through. */
  const { payout, dataDir } = cliInFreshDataDir('payout-reconcile-', { defaults: { RECONCILE_TIME_ZONE: 'UTC' }, per: 'file' });

  it(
    'finds nothing after a clean batch, then the three changes made upstream, with their codes and exit 1',
    async () => {
      const paid = await payout(['batch', 'run', sampleFile('payroll-valid.csv'), '--yes']);
      expect(paid.stderr).not.toContain('Error');
      const batchId = /Batch (b[0-9a-f]{11})/.exec(paid.stdout)![1]!;

      const clean = await payout(['reconcile', '--today']);
      expect(clean.stdout).toContain('No discrepancies');
      expect(clean.code).toBe(0);

      // Line 2 (EMP-001) and line 3 (EMP-002) were paid; another system pays a third.
      expect((await payout(['sandbox', 'alter', `${batchId}-2`, '--status', 'FAILED', '--error-code', 'BILLING_DECLINED'])).code).toBe(0);
      expect((await payout(['sandbox', 'alter', `${batchId}-3`, '--commission', '99.00'])).code).toBe(0);
      const behind = await payout(['sandbox', 'pay-behind', '--amount', '1500.00']);
      expect(behind.code).toBe(0);
      const behindId = behind.stdout.trim().split(/\s+/).at(-1)!;

      const output = join(dataDir(), 'discrepancies.xlsx');
      const found = await payout(['reconcile', '--today', '--output', output, '--format', 'xlsx']);
      expect(found.code).toBe(1);
      expect(found.stdout).toMatch(/3 discrepancies \(3 open, 0 repaired\)/);
      expect(found.stdout).toMatch(new RegExp(`UNKNOWN_TO_GATEWAY \\(1\\)[^]*${behindId}`));
      expect(found.stdout).toMatch(
        new RegExp(`STATUS_DIFFERS \\(1\\)[^]*${batchId}-2\\s+${batchId}:2\\s+COMPLETED\\s+FAILED\\s+BOTH\\s+OPEN`),
      );
      expect(found.stdout).toMatch(new RegExp(`COMMISSION_DIFFERS \\(1\\)[^]*${batchId}-3\\s+${batchId}:3\\s+\\d+\\.\\d{2}\\s+99\\.00`));
      // The progress bar is on stderr, the report on stdout.
      expect(found.stderr).toMatch(/days read/);

      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(output);
      const sheet = workbook.worksheets[0]!;
      const codes: string[] = [];
      sheet.eachRow((row, index) => {
        if (index > 1) codes.push(String(row.getCell(1).value));
      });
      expect(codes).toEqual(['UNKNOWN_TO_GATEWAY', 'STATUS_DIFFERS', 'COMMISSION_DIFFERS']);
    },
    BUDGET_MS,
  );

  it(
    'refuses a period it cannot read, naming it, with exit 2',
    async () => {
      const result = await payout(['reconcile', '--from', '2026-02-30']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('from "2026-02-30" is not a date');
    },
    BUDGET_MS,
  );
});

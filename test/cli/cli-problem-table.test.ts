import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { budget, cliInFreshDataDir } from '../support/cli-process.ts';

/**
 * The problem table (src/cli/output.ts): a code on many rows is one line with its first lines
 * and the first message, not a line per row; --json keeps every problem. And what a
 * re-upload of a paid file of many rows shows: the file refused in one line, or, changed,
 * its repeated rows held and counted, never listed row by row.
 */
const { payout, dataDir } = cliInFreshDataDir('payout-cli-problems-', { defaults: { LANG: 'en_US.UTF-8', TZ: 'UTC' } });
const rows = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `bank-card-token,${from + i}.00,token_success\n`).join('');

describe('the problem table', () => {
  it('groups a code repeated on many rows into one line; --json lists every problem', { timeout: budget(2) }, async () => {
    const file = join(dataDir(), 'signed.csv');
    const signed = Array.from({ length: 40 }, (_, i) => `bank-card-token,-${i + 1}.00,token_success\n`).join('');
    await writeFile(file, `provider,amount,account\n${signed}bank-card-token,5.00,\n`);

    const text = await payout(['batch', 'validate', file]);
    expect(text.code).toBe(1);
    const lines = text.stdout.split('\n').filter((line) => /\berror\b/.test(line));
    expect(lines).toEqual([
      expect.stringMatching(/^2–41\s+amount\s+error\s+amount\.format\s+40 rows, e\.g\. line 2: "-1\.00" has a sign/),
      expect.stringMatching(/^42\s+account\s+error\s+field\.required\s+is required for bank-card-token$/),
      expect.stringMatching(/^file\s+error\s+file\.no-valid-rows/),
    ]);

    const doc = JSON.parse((await payout(['batch', 'validate', file, '--json'])).stdout) as {
      problems: Array<{ line: number | null; code: string }>;
    };
    expect(doc.problems.filter((p) => p.code === 'amount.format').map((p) => p.line)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    expect(doc.problems).toHaveLength(42);
  });

  it(
    'a paid file of many rows uploaded again: refused in one line; changed, its rows held and counted, not listed',
    { timeout: budget(4) },
    async () => {
      const paid = join(dataDir(), 'payroll.csv');
      await writeFile(paid, `provider,amount,account\n${rows(100, 60)}`);
      const first = await payout(['batch', 'run', paid, '--yes']);
      expect(first.code, first.stderr).toBe(0);

      const again = await payout(['batch', 'run', paid, '--yes']);
      expect(again.code).toBe(1);
      const table = again.stdout.split('\n').filter((line) => /\b(error|warning)\b/.test(line));
      expect(table).toEqual([expect.stringMatching(/^file\s+error\s+file\.duplicate\s+the same file is batch b[0-9a-f]+ \(COMPLETED\)$/)]);
      const againDoc = JSON.parse((await payout(['batch', 'run', paid, '--yes', '--json'])).stdout) as {
        outcome: string;
        validation: { problems: unknown[] };
      };
      expect(againDoc).toMatchObject({ outcome: 'duplicate', validation: { problems: [{ code: 'file.duplicate' }] } });

      // The same 60 people and amounts and one more: another file, its 60 repeated rows held.
      const more = join(dataDir(), 'payroll-more.csv');
      await writeFile(more, `provider,amount,account\n${rows(100, 61)}`);
      const held = await payout(['batch', 'run', more, '--yes', '--json']);
      expect(held.code, held.stderr).toBe(0);
      const doc = JSON.parse(held.stdout) as {
        validation: { heldCount: number };
        batch: { counts: Array<{ status: string; count: number }> };
      };
      expect(doc.validation.heldCount).toBe(60);
      expect(doc.batch.counts).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ status: 'COMPLETED', count: 1 }),
          expect.objectContaining({ status: 'DUPLICATE', count: 60 }),
        ]),
      );
    },
  );
});

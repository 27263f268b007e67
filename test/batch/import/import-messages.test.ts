import { describe, expect, it } from 'vitest';
import { batchStates } from '../../../src/batch/states/batch-states.ts';
import { rowStates } from '../../../src/batch/states/row-states.ts';
import { importFixture, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';

/**
 * Issue 29, finding 5 (a, b) and finding 4: each message says what is wrong and what to do,
 * in words and figures a person reads (no ISO times, no enum names, amounts grouped), and
 * suggests no word the page does not offer. Through the importer on a real database.
 */
describe.each(testDatabaseKinds())('import messages on $name', (kind) => {
  const fx = importFixture(kind, { maxRows: 50, maxBytes: 100_000 });
  const messages = async (batchId: string) =>
    (await fx.problemsOf(batchId)).map((p) => ({ line: p.line, column: p.column, code: p.code, message: p.message }));
  /** The row's own problems (a file of one bad row also gets file.no-valid-rows). */
  const rowMessages = async (batchId: string) => (await messages(batchId)).filter((p) => p.line === 2);
  const header = 'reference,provider,amount,currency,account,bankId,description';

  it('an unquoted decimal comma in a comma-separated file: both counts, the amount split, and the two ways out; no follow-on errors', async () => {
    const batch = await fx.importer.import({
      source: textSource(`${header}\nR-1,sbp-b2c,1 000,50,RUB,79001234567,sbp_bank_id_success,\n`),
    });
    expect(await rowMessages(batch.id)).toEqual([
      {
        line: 2,
        column: null,
        code: 'row.cells',
        message:
          'has 8 cells where the header has 7: the amount "1 000,50" was split in two at its decimal comma; put the amount in quotes ("1 000,50") or save the file with ; as the separator',
      },
    ]);
  });

  it('an unquoted thousands comma (1,500) gets the same hint as a decimal comma (issue 38, section 3 finding 5)', async () => {
    const batch = await fx.importer.import({ source: textSource(`${header}\nR-4,sbp-b2c,1,500,RUB,79001234567,sbp_bank_id_success,\n`) });
    expect(await rowMessages(batch.id)).toEqual([
      {
        line: 2,
        column: null,
        code: 'row.cells',
        message:
          'has 8 cells where the header has 7: the amount "1,500" was split in two at its thousands comma; put the amount in quotes ("1,500"), write it without the comma (1500), or save the file with ; as the separator',
      },
    ]);
  });

  it('a row with a cell too many says both counts', async () => {
    const batch = await fx.importer.import({
      source: textSource(`${header}\nR-2,sbp-b2c,100.00,RUB,79001234567,sbp_bank_id_success,salary,extra\n`),
    });
    expect(await rowMessages(batch.id)).toEqual([
      { line: 2, column: null, code: 'row.cells', message: 'has 8 cells where the header has 7' },
    ]);
  });

  it('"1,500" is said to be ambiguous, with how to write it', async () => {
    const batch = await fx.importer.import({ source: textSource(`${header}\nR-3,sbp-b2c,"1,500",RUB,79001234567,sbp_bank_id_success,\n`) });
    expect(await rowMessages(batch.id)).toEqual([
      {
        line: 2,
        column: 'amount',
        code: 'amount.format',
        message:
          '"1,500" could be read two ways, as 1.500 or as 1500: write 1500.00 for one thousand five hundred, or, for an amount with decimals, at most two of them, such as 1.50',
      },
    ]);
  });

  it('the same file again: the day in words, the status in words, the amount grouped, and no word the page does not offer', async () => {
    const text = 'reference,provider,amount,account\nD-1,bank-card-token,46950.60,token_success\nD-2,bank-card-token,12.50,token_success\n';
    const first = await fx.importer.import({ source: textSource(text) });
    const prisma = fx.test.db.prisma;
    await prisma.batch.update({
      where: { id: first.id },
      data: { status: batchStates.completedWithFailures, createdAt: new Date('2026-11-27T04:32:27.003Z') },
    });
    await prisma.batchItem.updateMany({ where: { batchId: first.id, line: 2 }, data: { status: rowStates.completed } });
    await prisma.batchItem.updateMany({ where: { batchId: first.id, line: 3 }, data: { status: rowStates.failed } });
    const again = await fx.importer.import({ source: textSource(text) });
    expect(await messages(again.id)).toEqual([
      {
        line: null,
        column: null,
        code: 'file.duplicate',
        message:
          `the same file was imported as batch ${first.id} on 27 Nov 2026, 04:32 UTC; it finished with failures: 1 of 2 rows paid (46,950.60 RUB), 1 failed, expired or cancelled. ` +
          'Imported again on purpose as a repeat, every row paid or being paid is held back (held: it repeats a payment).',
      },
    ]);
  });

  it('the same file awaiting approval: approve or discard that batch, in the words of the page and the CLI alike', async () => {
    const text = 'reference,provider,amount,account\nV-1,bank-card-token,10.00,token_success\n';
    const first = await fx.importer.import({ source: textSource(text) });
    await fx.test.db.prisma.batch.update({ where: { id: first.id }, data: { createdAt: new Date('2026-11-02T09:05:00.000Z') } });
    const again = await fx.importer.import({ source: textSource(text) });
    expect((await messages(again.id)).map((p) => p.message)).toEqual([
      `the same file was imported as batch ${first.id} on 2 Nov 2026, 09:05 UTC; it awaits approval: approve or discard that batch instead. ` +
        'Imported again on purpose as a repeat, every row paid or being paid is held back (held: it repeats a payment).',
    ]);
  });
});

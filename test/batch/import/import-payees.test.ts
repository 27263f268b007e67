import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { BatchEvents } from '../../../src/batch/events/batch-events.ts';
import { BatchService } from '../../../src/batch/lifecycle/batch-service.ts';
import { finishBatches } from '../../../src/batch/lifecycle/sql/finish-batches.ts';
import { changedAccountRowsIncluded } from '../../../src/payees/held-for-changed-account.ts';
import { importFixture, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';

/** Luhn-valid cards the sandbox pays. */
const CARD_A = '2200000000000004';
const CARD_B = '2200000000000012';
const CARD_C = '2200000000000020';

describe.each(testDatabaseKinds())('payees and changed accounts on $name', (kind) => {
  const fx = importFixture(kind, { maxRows: 50, maxBytes: 100_000 });
  const service = () => new BatchService(fx.test.db.prisma, new BatchEvents(), { singleUser: true });
  let serial = 0;

  const payroll = (rows: Array<[payee: string, card: string, amount: string]>, header = 'payee') =>
    `reference,${header},provider,amount,pan,cardholder_name,cardholder_lastname\n` +
    rows.map(([payee, card, amount]) => `R-${++serial},${payee},bank-card-russia,${amount},${card},IVAN,IVANOV`).join('\n') +
    '\n';

  /** A batch approved and its rows paid, as the worker leaves them, then finished by the statement the worker runs. */
  async function paid(text: string, finishedAt: Date): Promise<string> {
    const batch = await fx.importer.import({ source: textSource(text) });
    expect(batch.status).toBe('VALIDATED');
    await service().approve(batch.id, { approver: 'test' });
    await fx.test.db.prisma.batchItem.updateMany({
      where: { batchId: batch.id, status: 'PENDING' },
      data: { status: 'COMPLETED', finishedAt },
    });
    expect(await finishBatches(fx.test.db.query, [batch.id])).toEqual([batch.id]);
    return batch.id;
  }

  const itemsOf = (batchId: string) =>
    fx.test.db.prisma.batchItem.findMany({
      where: { batchId },
      orderBy: { line: 'asc' },
      select: { line: true, payeeId: true, payeeMark: true, payeeLastPaidAt: true, status: true, errorCode: true, errorMessage: true },
    });

  it('marks new payees, remembers the account paid when the batch finishes, then knows them or holds a changed account', async () => {
    const first = payroll([
      ['E-100', CARD_A, '1000.00'],
      ['E-200', CARD_B, '2000.00'],
    ]);
    const imported = await fx.importer.import({ source: textSource(first) });
    expect((await itemsOf(imported.id)).map((i) => i.payeeMark)).toEqual(['NEW_PAYEE', 'NEW_PAYEE']);
    await fx.test.db.prisma.batch.update({ where: { id: imported.id }, data: { status: 'CANCELLED' } });

    const octoberPayday = new Date('2026-10-27T09:00:00Z');
    await paid(
      payroll([
        ['E-100', CARD_A, '1000.00'],
        ['E-200', CARD_B, '2000.00'],
      ]),
      octoberPayday,
    );
    const remembered = await fx.test.db.prisma.payeeAccount.findMany({
      where: { payeeId: { in: ['E-100', 'E-200'] } },
      orderBy: { payeeId: 'asc' },
    });
    expect(remembered.map((p) => [p.payeeId, p.lastPaidAt.toISOString()])).toEqual([
      ['E-100', octoberPayday.toISOString()],
      ['E-200', octoberPayday.toISOString()],
    ]);
    // Keyed fingerprints only: no card number is stored (ids and hashes are random hex, so no shorter pattern is asked about).
    expect(remembered.map((p) => p.accountKey)).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/), expect.stringMatching(/^[0-9a-f]{32}$/)]);
    for (const card of [CARD_A, CARD_B]) expect(JSON.stringify(remembered)).not.toContain(card);

    const november = payroll([
      ['E-100', CARD_A, '1100.00'],
      ['E-200', CARD_C, '2100.00'],
      ['E-300', CARD_B, '300.00'],
    ]);
    const text = `${november}R-${++serial},,bank-card-russia,50.00,${CARD_A},IVAN,IVANOV\n`;
    const batch = await fx.importer.import({ source: textSource(text) });
    expect(batch).toMatchObject({ status: 'VALIDATED', heldCount: 0, changedAccountCount: 1 });
    expect(batch.changedAccountAmount.toFixed(2)).toBe('2100.00');
    const items = await itemsOf(batch.id);
    expect(items.map((i) => [i.payeeId, i.payeeMark, i.status, i.payeeLastPaidAt?.toISOString() ?? null])).toEqual([
      ['E-100', 'KNOWN', 'PENDING', octoberPayday.toISOString()],
      ['E-200', 'ACCOUNT_CHANGED', 'DUPLICATE', octoberPayday.toISOString()],
      ['E-300', 'NEW_PAYEE', 'PENDING', null],
      [null, null, 'PENDING', null],
    ]);
    // Words and a day, never an enum name or an ISO time.
    expect(items[1]!.errorMessage).toBe(
      'payee E-200 was last paid on 27 Oct 2026 to another account; held back, paid only if the approver includes rows whose account changed',
    );
    expect(await fx.problemsOf(batch.id)).toContainEqual(
      expect.objectContaining({ line: 3, column: 'payee', code: 'row.account-changed', severity: 'warning' }),
    );
    expect(changedAccountRowsIncluded(batch, true)).toBe(1);
    expect(changedAccountRowsIncluded(batch, false)).toBe(0);

    const report = await fx.importer.validate({ source: textSource(text), force: true });
    expect(report).toMatchObject({
      changedAccountCount: 1,
      changedAccountAmount: '2100.00',
      heldCount: 0,
      payeeMarks: { newPayees: 1, changedAccounts: 1, knownPayees: 1, changedSince: octoberPayday },
    });
  });

  it('pays a changed account only when the approver includes it, not with the held repeats alone', async () => {
    const payday = new Date('2026-10-28T09:00:00Z');
    await paid(payroll([['E-400', CARD_A, '400.00']]), payday);
    const changed = () =>
      payroll([
        ['E-400', CARD_B, '400.00'],
        ['E-401', CARD_C, '10.00'],
      ]);

    const repeatsOnly = await fx.importer.import({ source: textSource(changed()) });
    const approved = await service().approve(repeatsOnly.id, { approver: 'test', includeHeld: true });
    expect(approved).toMatchObject({ includeHeld: true, includeChangedAccounts: false });
    expect((await itemsOf(repeatsOnly.id)).map((i) => i.status)).toEqual(['DUPLICATE', 'PENDING']);
    expect(changedAccountRowsIncluded(approved)).toBe(0);

    const included = await fx.importer.import({ source: textSource(changed()) });
    const approvedWith = await service().approve(included.id, { approver: 'test', includeChangedAccounts: true });
    expect((await itemsOf(included.id)).map((i) => [i.status, i.errorCode])).toEqual([
      ['PENDING', null],
      ['PENDING', null],
    ]);
    expect(changedAccountRowsIncluded(approvedWith)).toBe(1);
    const audit = await fx.test.db.prisma.auditEvent.findFirst({ where: { batchId: included.id, action: 'batch.approve' } });
    expect(audit?.detail).toMatchObject({ includeChangedAccounts: true, changedAccountRows: 1 });
  });

  it('holds at approval a changed account that has since come to repeat a payment: including changed accounts does not pay it', async () => {
    await paid(payroll([['E-500', CARD_A, '500.00']]), new Date('2026-10-29T09:00:00Z'));
    const changed = await fx.importer.import({ source: textSource(payroll([['E-500', CARD_B, '600.00']])) });
    expect((await itemsOf(changed.id)).map((i) => i.status)).toEqual(['DUPLICATE']);
    // Another file pays the same card the same amount, with no reference: approved first.
    const other = await fx.importer.import({
      source: textSource(`provider,amount,pan,cardholder_name,cardholder_lastname\nbank-card-russia,600.00,${CARD_B},IVAN,IVANOV\n`),
    });
    await service().approve(other.id, { approver: 'test' });

    const refusal = await service()
      .approve(changed.id, { approver: 'test', includeChangedAccounts: true })
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'batch.new-duplicates' });
    const [row] = await fx.test.db.prisma.batchItem.findMany({ where: { batchId: changed.id } });
    expect(row).toMatchObject({
      status: 'DUPLICATE',
      payeeMark: 'ACCOUNT_CHANGED',
      repeatsPaymentId: expect.stringContaining(other.id),
      errorCode: 'row.already-paid',
    });
    // Counted now as a repeat, no longer as a changed account: the counts stay apart and add up.
    expect(await fx.test.db.prisma.batch.findUniqueOrThrow({ where: { id: changed.id } })).toMatchObject({
      heldCount: 1,
      changedAccountCount: 0,
    });
    await service().approve(changed.id, { approver: 'test', includeChangedAccounts: true });
    expect((await itemsOf(changed.id)).map((i) => i.status)).toEqual(['DUPLICATE']);
  });

  it('reads the payee column of an Excel workbook, and names a bad id by its spreadsheet row', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Payroll');
    sheet.addRow(['Payee', 'provider', 'amount', 'pan', 'cardholder_name', 'cardholder_lastname']);
    sheet.addRow(['X-1', 'bank-card-russia', 10, CARD_A, 'IVAN', 'IVANOV']);
    sheet.addRow(['bad id', 'bank-card-russia', 11, CARD_A, 'IVAN', 'IVANOV']);
    const bytes = Buffer.from(await book.xlsx.writeBuffer());
    const batch = await fx.importer.import({
      source: (async function* () {
        yield bytes;
      })(),
    });
    expect((await fx.problemsOf(batch.id)).filter((p) => p.severity === 'error').map((p) => [p.line, p.column, p.code])).toEqual([
      [3, 'payee', 'payee.format'],
    ]);
    expect((await itemsOf(batch.id))[0]).toMatchObject({ line: 2, payeeId: 'X-1', payeeMark: 'NEW_PAYEE' });
  });

  it('reads the payee column under its Russian name, and names a bad id by line and column', async () => {
    const text = payroll(
      [
        ['Т-17', CARD_A, '10.00'],
        ['has space', CARD_A, '11.00'],
        [CARD_B, CARD_A, '12.00'],
        ['x'.repeat(37), CARD_A, '13.00'],
      ],
      'Табельный номер',
    );
    const batch = await fx.importer.import({ source: textSource(text) });
    expect(batch.status).toBe('REJECTED');
    const problems = (await fx.problemsOf(batch.id)).filter((p) => p.severity === 'error');
    expect(problems.map((p) => [p.line, p.column, p.code])).toEqual([
      [3, 'payee', 'payee.format'],
      [4, 'payee', 'payee.card-number'],
      [5, 'payee', 'payee.too-long'],
    ]);
    expect(problems.map((p) => p.message).join('\n')).not.toContain(CARD_B);
    expect((await itemsOf(batch.id))[0]).toMatchObject({ payeeId: 'Т-17', payeeMark: 'NEW_PAYEE' });
  });
});

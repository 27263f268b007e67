import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOverlaps } from '../../../src/batch/index.ts';
import { BatchStateError } from '../../../src/batch/lifecycle/batch-service.ts';
import { sqlOf } from '../../../src/db/database.ts';
import { testWorker, textSource } from '../../support/batch.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { testDatabaseKinds } from '../../support/database.ts';

/**
 * Issue 18, finding 1: the same payroll uploaded again, changed only in how it is written,
 * must pay no one again. Each case pays a 3-row payroll, then imports a copy changed one
 * way: every row comes back DUPLICATE naming the row it repeats, and approving it pays
 * nobody (the payments made stay the first batch's three).
 */
describe.each(testDatabaseKinds())('duplicate payments on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, database: kind, sandbox: { inProgressMs: 20 } });
  });
  afterAll(() => gw.close());

  const s = () => gw.services();
  const db = () => gw.db.prisma;
  let serial = 0;

  /** Three payees of this case alone (the amount tells them apart), each a row. */
  function payroll() {
    const n = ++serial;
    const rows = [1, 2, 3].map((i) => ({ reference: `D${n}-${i}`, amount: `${n * 1000 + i * 100}.00`, account: 'token_success' }));
    return { n, rows };
  }
  const csv = (
    rows: Array<{ reference?: string; amount: string; account: string }>,
    options: { delimiter?: string; columns?: string[] } = {},
  ) => {
    const columns = options.columns ?? ['reference', 'provider', 'amount', 'account'];
    const cell = (row: Record<string, string | undefined>, column: string) =>
      column === 'provider' ? 'bank-card-token' : (row[column] ?? '');
    return (
      [columns.join(options.delimiter ?? ','), ...rows.map((row) => columns.map((c) => cell(row, c)).join(options.delimiter ?? ','))].join(
        '\n',
      ) + '\n'
    );
  };

  async function importText(text: string | Buffer, force = false) {
    const source =
      typeof text === 'string'
        ? textSource(text)
        : (async function* () {
            yield text;
          })();
    return s().importer.import({ source, force, uploadedBy: 'anonymous' });
  }

  async function pay(batchId: string, options: { includeHeld?: boolean } = {}) {
    await s().batches.approve(batchId, { approver: 'anonymous', ...options });
    await testWorker(gw).drain(async () =>
      ['COMPLETED', 'COMPLETED_WITH_FAILURES'].includes((await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status),
    );
  }

  const itemsOf = (batchId: string) => db().batchItem.findMany({ where: { batchId }, orderBy: { line: 'asc' } });
  const completedPaymentsOf = (n: number) =>
    db().payment.count({ where: { status: 'COMPLETED', amount: { in: [1, 2, 3].map((i) => `${n * 1000 + i * 100}.00`) } } });

  async function paidOriginal() {
    const p = payroll();
    const first = await importText(csv(p.rows));
    expect(first.status).toBe('VALIDATED');
    await pay(first.id);
    expect(await completedPaymentsOf(p.n)).toBe(3);
    return { ...p, first };
  }

  async function xlsx(rows: Array<{ reference: string; amount: string; account: string }>, reorder = false): Promise<Buffer> {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Payroll');
    sheet.addRow(reorder ? ['amount', 'account', 'provider', 'reference'] : ['reference', 'provider', 'amount', 'account']);
    for (const row of rows) {
      const amount = Number(row.amount.replace('.00', ''));
      sheet.addRow(
        reorder ? [amount, row.account, 'bank-card-token', row.reference] : [row.reference, 'bank-card-token', amount, row.account],
      );
    }
    return Buffer.from(await book.xlsx.writeBuffer());
  }

  const variants: Array<[string, (rows: ReturnType<typeof payroll>['rows']) => string | Buffer | Promise<Buffer>]> = [
    ['its rows re-ordered', (rows) => csv([...rows].reverse())],
    ['; instead of ,', (rows) => csv(rows, { delimiter: ';' })],
    ['saved as UTF-16', (rows) => Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(csv(rows), 'utf16le')])],
    ['one quoted cell', (rows) => csv(rows).replace(rows[1]!.reference, `"${rows[1]!.reference}"`)],
    ['300 instead of 300.00', (rows) => csv(rows.map((row) => ({ ...row, amount: row.amount.replace('.00', '') })))],
    ['its columns re-ordered', (rows) => csv(rows, { columns: ['account', 'amount', 'provider', 'reference'] })],
    ['without the reference column', (rows) => csv(rows, { columns: ['provider', 'amount', 'account'] })],
    ['saved again as XLSX', (rows) => xlsx(rows)],
    ['saved again as XLSX with its columns moved', (rows) => xlsx(rows, true)],
  ];

  it.each(variants)('pays no one again for a copy with %s', async (_name, variant) => {
    const { n, rows, first } = await paidOriginal();
    const again = await importText(await variant(rows));
    expect(again).toMatchObject({ status: 'VALIDATED', validCount: 3, heldCount: 3, heldAmount: expect.anything() });
    expect(again.heldAmount.toFixed(2)).toBe(first.totalAmount.toFixed(2));
    const items = await itemsOf(again.id);
    expect(items.map((i) => i.status)).toEqual(['DUPLICATE', 'DUPLICATE', 'DUPLICATE']);
    const firstItems = await itemsOf(first.id);
    for (const item of items) {
      const repeated = firstItems.find((f) => f.amount.equals(item.amount))!;
      expect(item).toMatchObject({ repeatsPaymentId: repeated.paymentId, errorCode: 'row.already-paid' });
      expect(item.errorMessage).toContain(`line ${repeated.line} of batch ${first.id} (paid on `);
    }
    const problems = await db().batchProblem.findMany({ where: { batchId: again.id, code: 'row.already-paid' } });
    expect(problems).toHaveLength(3);
    // What Batch.overlaps shows.
    expect(await countOverlaps(sqlOf(db()), again.id)).toEqual([{ batchId: first.id, rows: 3, amount: first.totalAmount.toFixed(2) }]);
    expect(problems.every((p) => p.severity === 'warning' && p.message.includes(first.id))).toBe(true);

    await pay(again.id);
    expect((await db().batch.findUniqueOrThrow({ where: { id: again.id } })).status).toBe('COMPLETED');
    expect(await completedPaymentsOf(n)).toBe(3);
    expect(await db().payment.count({ where: { batchId: again.id } })).toBe(0);
  });

  it('holds the same row twice in one file, paying it once', async () => {
    const { n, rows } = payroll();
    const twice = csv([rows[0]!, rows[1]!, rows[0]!], { columns: ['provider', 'amount', 'account'] });
    const batch = await importText(twice);
    expect(batch).toMatchObject({ status: 'VALIDATED', heldCount: 1 });
    const items = await itemsOf(batch.id);
    expect(items.map((i) => i.status)).toEqual(['PENDING', 'PENDING', 'DUPLICATE']);
    expect(items[2]).toMatchObject({ errorCode: 'row.duplicate', repeatsPaymentId: items[0]!.paymentId });
    // A row repeating one of its own file overlaps no other batch.
    expect(await countOverlaps(sqlOf(db()), batch.id)).toEqual([]);
    await pay(batch.id);
    expect(await completedPaymentsOf(n)).toBe(2);
  });

  it('pays next month’s payroll: the same payees and amounts under new references', async () => {
    const { rows, first } = await paidOriginal();
    const next = await importText(csv(rows.map((row) => ({ ...row, reference: `${row.reference}-next` }))));
    expect(next).toMatchObject({ status: 'VALIDATED', heldCount: 0 });
    await pay(next.id);
    expect(await db().payment.count({ where: { batchId: next.id, status: 'COMPLETED' } })).toBe(3);
    expect(first.id).not.toBe(next.id);
  });

  it('pays held rows only when the approver includes them, and records that choice', async () => {
    const { n, rows } = await paidOriginal();
    const again = await importText(csv(rows, { delimiter: ';' }));
    expect(again.heldCount).toBe(3);
    await pay(again.id, { includeHeld: true });
    expect(await completedPaymentsOf(n)).toBe(6);
    expect(await db().batch.findUniqueOrThrow({ where: { id: again.id } })).toMatchObject({ includeHeld: true });
    const audit = await db().auditEvent.findFirstOrThrow({ where: { batchId: again.id, action: 'batch.approve' } });
    expect(audit.detail).toMatchObject({ includeHeld: true, heldRows: 3, heldIncluded: 3 });
  });

  it('flags a forced import of the same file and shows it was forced', async () => {
    const { n, rows } = await paidOriginal();
    const refused = await importText(csv(rows));
    expect(refused.status).toBe('REJECTED');
    const problem = await db().batchProblem.findFirstOrThrow({ where: { batchId: refused.id } });
    expect(problem.code).toBe('file.duplicate');
    expect(problem.message).toMatch(/it finished: 3 of 3 rows paid \([\d,.]+ RUB\)/);
    expect(problem.message).not.toMatch(/force to pay it again/);
    const forced = await importText(csv(rows), true);
    expect(forced).toMatchObject({ status: 'VALIDATED', forced: true, heldCount: 3 });
    await pay(forced.id);
    expect(await completedPaymentsOf(n)).toBe(3);
  });

  it('holds at approval the rows of a copy imported before the first was approved, and refuses until the approver has seen them', async () => {
    const { n, rows } = payroll();
    const first = await importText(csv(rows));
    const copy = await importText(csv([...rows].reverse()));
    expect(copy).toMatchObject({ status: 'VALIDATED', heldCount: 0 });
    await pay(first.id);
    const refusal = await s()
      .batches.approve(copy.id, { approver: 'anonymous' })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BatchStateError);
    expect((refusal as BatchStateError).code).toBe('batch.new-duplicates');
    expect(await db().batch.findUniqueOrThrow({ where: { id: copy.id } })).toMatchObject({ status: 'VALIDATED', heldCount: 3 });
    expect((await itemsOf(copy.id)).every((i) => i.status === 'DUPLICATE' && i.errorMessage!.includes(first.id))).toBe(true);
    await pay(copy.id);
    expect(await completedPaymentsOf(n)).toBe(3);
  });

  it('lets only one of two copies approved at the same moment pay', async () => {
    const { n, rows } = payroll();
    const a = await importText(csv(rows));
    const b = await importText(csv(rows, { delimiter: ';' }));
    const results = await Promise.allSettled([
      s().batches.approve(a.id, { approver: 'anonymous' }),
      s().batches.approve(b.id, { approver: 'anonymous' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const worker = testWorker(gw);
    await worker.drain(
      async () =>
        (await db().batchItem.count({
          where: { batchId: { in: [a.id, b.id] }, status: { in: ['PENDING', 'CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS'] } },
        })) === 0,
    );
    expect(await completedPaymentsOf(n)).toBe(3);
  });

  it('does not pay a failed row again once its payee was paid the same amount by another batch', async () => {
    const n = ++serial;
    const failing = `provider,amount,account\nbank-card-token,${n * 1000}.00,token_execute_failed\nbank-card-token,${n * 1000 + 1}.00,token_execute_failed\n`;
    const first = await importText(failing);
    await pay(first.id);
    expect((await itemsOf(first.id)).map((i) => i.status)).toEqual(['FAILED', 'FAILED']);
    // A corrected file paid the first payee meanwhile (here: its row, marked paid).
    const corrected = await importText(`provider,amount,account\nbank-card-token,${n * 1000}.00,token_execute_failed\n`);
    await s().batches.approve(corrected.id, { approver: 'anonymous' });
    await db().batchItem.updateMany({ where: { batchId: corrected.id }, data: { status: 'COMPLETED', finishedAt: new Date() } });
    await s().batches.retryFailed(first.id);
    const rows = await itemsOf(first.id);
    expect(rows.map((i) => [i.status === 'FAILED' ? 'FAILED' : 'PAID AGAIN', i.attempt])).toEqual([
      ['FAILED', 1],
      ['PAID AGAIN', 2],
    ]);
  });
});

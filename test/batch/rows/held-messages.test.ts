import { describe, expect, it } from 'vitest';
import { BatchEvents } from '../../../src/batch/events/batch-events.ts';
import { BatchService, BatchStateError } from '../../../src/batch/lifecycle/batch-service.ts';
import { finishBatches } from '../../../src/batch/lifecycle/sql/finish-batches.ts';
import { importFixture, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';

/**
 * Issue 30, part 3 item 5: the message on a held row is read by people (page, CLI, export):
 * it says "paid on 27 Oct 2026" in words, never a status enum name or an ISO day, whether the
 * row was held at import or at approval (rows/sql/hold-approved-repeats.ts).
 */
describe.each(testDatabaseKinds())('held-row messages on $name', (kind) => {
  const fx = importFixture(kind, { maxRows: 50, maxBytes: 100_000 });
  const service = () => new BatchService(fx.test.db.prisma, new BatchEvents(), { singleUser: true });
  let serial = 0;
  const payroll = () => {
    const n = ++serial;
    return `reference,provider,amount,account\nH${n}-1,bank-card-token,${n}01.00,token_success\nH${n}-2,bank-card-token,${n}02.00,token_success\n`;
  };
  const machine = /COMPLETED|IN_PROGRESS|PENDING|NEEDS_REVIEW|\d{4}-\d{2}-\d{2}/;

  async function complete(batchId: string, finishedAt: Date): Promise<void> {
    await fx.test.db.prisma.batchItem.updateMany({ where: { batchId, status: 'PENDING' }, data: { status: 'COMPLETED', finishedAt } });
    await finishBatches(fx.test.db.query, [batchId]);
  }
  const heldMessages = async (batchId: string) =>
    (await fx.test.db.prisma.batchItem.findMany({ where: { batchId, status: 'DUPLICATE' }, orderBy: { line: 'asc' } })).map(
      (i) => i.errorMessage ?? '',
    );

  it('says when the repeated row was paid, in words, at import', async () => {
    const text = payroll();
    const first = await fx.importer.import({ source: textSource(text) });
    await service().approve(first.id, { approver: 'test' });
    await complete(first.id, new Date('2026-10-27T09:00:00Z'));
    const again = await fx.importer.import({ source: textSource(text), force: true });
    const messages = await heldMessages(again.id);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toBe(
      `repeats line 2 of batch ${first.id} (paid on 27 Oct 2026): the same payee, amount and reference; held back, paid only if the approver includes held rows`,
    );
    for (const message of [...messages, ...(await fx.problemsOf(again.id)).map((p) => p.message)]) expect(message).not.toMatch(machine);
  });

  it('says the same at approval, and that a row is still being paid', async () => {
    const text = payroll();
    const first = await fx.importer.import({ source: textSource(text) });
    const copy = await fx.importer.import({ source: textSource(text), force: true });
    const second = await fx.importer.import({ source: textSource(text), force: true });
    await service().approve(first.id, { approver: 'test' });
    // first's rows are still paying: the copy is held as a repeat of a payment in flight.
    const refusal = await service()
      .approve(copy.id, { approver: 'test' })
      .catch((error: unknown) => error);
    expect((refusal as BatchStateError).code).toBe('batch.new-duplicates');
    const inFlight = await heldMessages(copy.id);
    expect(inFlight[0]).toMatch(
      new RegExp(`^repeats line 2 of batch ${first.id} \\(being paid, approved on \\d{1,2} [A-Z][a-z]{2} \\d{4}\\): `),
    );
    await complete(first.id, new Date('2026-10-27T09:00:00Z'));
    await service()
      .approve(second.id, { approver: 'test' })
      .catch((error: unknown) => error);
    const paid = await heldMessages(second.id);
    expect(paid[1]).toBe(
      `repeats line 3 of batch ${first.id} (paid on 27 Oct 2026): the same payee, amount and reference; held back, paid only if the approver includes held rows`,
    );
    for (const message of [...inFlight, ...paid, ...(await fx.problemsOf(copy.id)).map((p) => p.message)])
      expect(message).not.toMatch(machine);
  });
});

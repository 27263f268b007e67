import { describe, expect, it } from 'vitest';
import { BatchEvents } from '../../../src/batch/events/batch-events.ts';
import { BatchService } from '../../../src/batch/lifecycle/batch-service.ts';
import { importFixture, textSource } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';

/** Sources that each hold back their last byte until all have started: the imports overlap for sure. */
function startingTogether(text: string, count: number): AsyncIterable<Uint8Array>[] {
  let started = 0;
  let release!: () => void;
  const allStarted = new Promise<void>((resolve) => (release = resolve));
  return Array.from({ length: count }, () =>
    (async function* () {
      yield Buffer.from(text.slice(0, -1));
      if (++started === count) release();
      await allStarted;
      yield Buffer.from(text.slice(-1));
    })(),
  );
}

describe.each(testDatabaseKinds())('duplicate files on $name', (kind) => {
  const fx = importFixture(kind, { maxRows: 50, maxBytes: 100_000 });
  const { problemsOf } = fx;

  let serial = 0;
  /** A payable file no other test imports. */
  const payroll = () =>
    `provider,amount,account,description\nbank-card-token,10.00,token_success,case ${++serial}\nbank-card-token,12.50,token_success,two\n`;

  it('gives one batch when the same file is imported several times at once', async () => {
    const text = payroll();
    const batches = await Promise.all(startingTogether(text, 4).map((source) => fx.importer.import({ source })));
    const kept = batches.filter((b) => b.status !== 'REJECTED');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ status: 'VALIDATED', fileKey: expect.stringMatching(/^[0-9a-f]{64}$/) });
    for (const refused of batches.filter((b) => b.status === 'REJECTED')) {
      expect(refused).toMatchObject({ fileKey: null, rowCount: 0 });
      expect(await problemsOf(refused.id)).toEqual([
        expect.objectContaining({ line: null, code: 'file.duplicate', message: expect.stringContaining(kept[0]!.id) }),
      ]);
    }
  });

  it.each([
    ['with CRLF line ends', (text: string) => text.replace(/\n/g, '\r\n')],
    ['with a UTF-8 BOM', (text: string) => `\uFEFF${text}`],
    ['with a trailing blank line', (text: string) => `${text}\n`],
    ['without the final newline', (text: string) => text.slice(0, -1)],
    ['with trailing spaces and blank lines, CRLF and a BOM at once', (text: string) => `\uFEFF${text.replace(/\n/g, '\r\n')}  \r\n\r\n\t`],
  ])('refuses the same file re-saved %s, without reading its rows', async (_name, resave) => {
    const text = payroll();
    const first = await fx.importer.import({ source: textSource(text) });
    expect(first.status).toBe('VALIDATED');
    const again = await fx.importer.import({ source: textSource(resave(text)) });
    expect(again).toMatchObject({ status: 'REJECTED', rowCount: 0, fileKey: null });
    expect(again.fileHash).not.toBe(first.fileHash);
    expect(await problemsOf(again.id)).toEqual([
      expect.objectContaining({ code: 'file.duplicate', message: expect.stringContaining(first.id) }),
    ]);
    expect(await fx.test.db.prisma.batchItem.count({ where: { batchId: again.id } })).toBe(0);
  });

  it('takes a changed file as a new one', async () => {
    const text = payroll();
    await fx.importer.import({ source: textSource(text) });
    const changed = await fx.importer.import({ source: textSource(text.replace('12.50', '12.51')) });
    expect(changed.status).toBe('VALIDATED');
  });

  it('imports a forced repeat without a key, and keeps refusing unforced ones', async () => {
    const text = payroll();
    const first = await fx.importer.import({ source: textSource(text) });
    const forced = await fx.importer.import({ source: textSource(text.replace(/\n/g, '\r\n')), force: true });
    expect(forced).toMatchObject({ status: 'VALIDATED', fileKey: null });
    const again = await fx.importer.import({ source: textSource(text) });
    expect((await problemsOf(again.id)).map((p) => p.message)).toEqual([expect.stringContaining(first.id)]);
  });

  it('lets a rejected file be uploaded again', async () => {
    const text = `provider,amount,account\nbank-card-token,0.00,token_success\nbank-card-token,1.00,token_${++serial}\n`;
    const first = await fx.importer.import({ source: textSource(text) });
    expect(first).toMatchObject({ status: 'REJECTED', fileKey: null });
    const again = await fx.importer.import({ source: textSource(text) });
    expect(again.status).toBe('REJECTED');
    expect((await problemsOf(again.id)).map((p) => p.code)).not.toContain('file.duplicate');
  });

  it('lets a discarded file be uploaded again, but not one whose run was cancelled', async () => {
    const batches = new BatchService(fx.test.db.prisma, new BatchEvents(), { singleUser: true });
    const text = payroll();
    const discarded = await fx.importer.import({ source: textSource(text) });
    await batches.cancel(discarded.id);
    const again = await fx.importer.import({ source: textSource(text) });
    expect(again).toMatchObject({ status: 'VALIDATED', fileKey: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await batches.get(discarded.id)).fileKey).toBeNull();

    // Approved and then cancelled: rows may have been paid, so the file stays taken.
    await batches.approve(again.id, { approver: 'test' });
    await batches.cancel(again.id);
    const third = await fx.importer.import({ source: textSource(text) });
    expect((await problemsOf(third.id)).map((p) => [p.code, p.message.includes(again.id)])).toEqual([['file.duplicate', true]]);
  });

  it('refuses the exact bytes of a batch imported before files had keys', async () => {
    const text = payroll();
    const first = await fx.importer.import({ source: textSource(text) });
    // As a batch from before the key column looks: the same hash of the bytes, no key.
    await fx.test.db.prisma.batch.update({ where: { id: first.id }, data: { fileKey: null } });
    const again = await fx.importer.import({ source: textSource(text) });
    expect((await problemsOf(again.id)).map((p) => [p.code, p.message.includes(first.id)])).toEqual([['file.duplicate', true]]);
  });

  it('reports a duplicate when only validating', async () => {
    const text = payroll();
    const first = await fx.importer.import({ source: textSource(text) });
    const report = await fx.importer.validate({ source: textSource(`\uFEFF${text}`) });
    expect(report.payable).toBe(false);
    expect(report.problems).toContainEqual(expect.objectContaining({ code: 'file.duplicate', message: expect.stringContaining(first.id) }));
    expect((await fx.importer.validate({ source: textSource(text), force: true })).payable).toBe(true);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { batchStates } from '../../../src/batch/index.ts';
import { textSource, tokenPayroll } from '../../support/batch.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { deployment, type Deployment } from '../../support/deployment.ts';
import { eventually } from '../../support/eventually.ts';

/**
 * Issue 41: workers wake instead of polling. With the safety poll set to an hour, a worker
 * (in another process's runtime on PostgreSQL: the notice crosses by NOTIFY) claims a batch's
 * rows once a person approves it, and a scheduled batch's rows at their time (the due timer).
 */
const HOUR_MS = String(60 * 60_000);

describe.each(testDatabaseKinds())('a worker polling once an hour, on $name', (kind) => {
  let current: Deployment | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });

  it('is woken by an approval and pays the batch', async () => {
    const d = (current = await deployment(kind, { WORKER_POLL_MS: HOUR_MS }));
    // The other process's worker alone (PostgreSQL), or the one worker of the process (PGlite).
    const worker = d.runtimes.at(-1)!.worker;
    worker.start();
    const gateway = d.runtimes[0]!.services;
    const batch = await gateway.importer.import({ source: textSource(tokenPayroll(71, 5)), name: 'woken' });
    // The worker has looked, found nothing and gone to sleep for its hour.
    await eventually(() => expect(worker.waiting).toBe(true));
    await gateway.batches.approve(batch.id, { approver: 'anonymous' });
    await eventually(async () => {
      const done = await d.test.db.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } });
      expect(done.status).toBe(batchStates.completed);
    }, 60_000);
    expect(d.sb.sandbox.testFeatures.calls().byKind.create).toBe(5);
  });

  it('wakes at a scheduled batch’s time and pays it', async () => {
    const d = (current = await deployment(kind, { WORKER_POLL_MS: HOUR_MS }));
    const worker = d.runtimes.at(-1)!.worker;
    worker.start();
    const gateway = d.runtimes[0]!.services;
    const batch = await gateway.importer.import({ source: textSource(tokenPayroll(72, 3)), name: 'due' });
    const payAt = new Date(Date.now() + 3_000);
    const approved = await gateway.batches.approve(batch.id, { approver: 'anonymous', payAt });
    expect(approved.status).toBe(batchStates.scheduled);
    await eventually(async () => {
      const done = await d.test.db.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } });
      expect(done.status).toBe(batchStates.completed);
    }, 60_000);
    const first = await d.test.db.prisma.batchItem.findFirstOrThrow({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    expect(first.updatedAt.getTime()).toBeGreaterThanOrEqual(payAt.getTime());
  });
});

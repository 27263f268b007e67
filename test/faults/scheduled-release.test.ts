import { expect, it } from 'vitest';
import type { Batch } from '../../src/db/generated/client.ts';
import { textSource } from '../support/batch.ts';
import { payroll } from '../support/fault-payroll.ts';
import { describeFaultSuite, SCENARIO_TIMEOUT_MS, until, useFaultScenario, type FaultRig } from '../support/fault-rig.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';

/**
 * Scheduled batches with real worker processes on PostgreSQL and the sandbox: nothing is
 * sent before payAt, whichever workers run it is released once (one statement on the
 * database clock), a worker killed around the release loses and doubles nothing, and a
 * batch rescheduled or cancelled while it waits does what the person said. No fixed sleeps:
 * payAt is put a few seconds ahead once the workers run, and the test waits for statuses.
 */
describeFaultSuite('fault suite: scheduled batches', () => {
  const scenario = useFaultScenario();

  /** A test-only trigger recording each batch status change on the database clock: the release is one of them. */
  async function recordBatchMoves(rig: FaultRig): Promise<void> {
    await rig.prisma.$executeRawUnsafe(
      `CREATE TABLE schedule_batch_move (batch_id text, old_status text, new_status text, at timestamptz DEFAULT clock_timestamp())`,
    );
    await rig.prisma.$executeRawUnsafe(`
      CREATE FUNCTION schedule_record_batch_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO schedule_batch_move (batch_id, old_status, new_status) VALUES (NEW.id, OLD.status::text, NEW.status::text);
        RETURN NEW;
      END $$`);
    await rig.prisma.$executeRawUnsafe(`
      CREATE TRIGGER schedule_batch_move AFTER UPDATE ON "Batch" FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION schedule_record_batch_move()`);
  }

  const releasesOf = (rig: FaultRig, batchId: string) =>
    rig.prisma.$queryRawUnsafe<Array<{ at: Date }>>(
      `SELECT at FROM schedule_batch_move WHERE batch_id = $1 AND old_status = 'SCHEDULED' AND new_status = 'RUNNING'`,
      batchId,
    );

  /** Imported and approved to pay an hour from now: it waits while the workers start. */
  async function scheduledAnHourAhead(rig: FaultRig, csv: string, name: string): Promise<Batch> {
    const { importer, batches } = rig.runtime.services;
    const batch = await importer.import({ source: textSource(csv), name, force: true, uploadedBy: 'fault-suite-uploader' });
    const approved = await batches.approve(batch.id, { approver: 'fault-suite-approver', payAt: new Date(Date.now() + 3_600_000) });
    expect(approved.status).toBe('SCHEDULED');
    return approved;
  }

  async function workersRunning(rig: FaultRig): Promise<void> {
    await until('the workers to run', async () => rig.workers.every((worker) => worker.owner !== undefined), {
      abort: () => rig.firstUnexpectedExit(),
    });
  }

  /** Moved to a few seconds ahead, through the product's own reschedule. */
  async function dueSoon(rig: FaultRig, batchId: string): Promise<Date> {
    const batch = await rig.runtime.services.schedule.reschedule(batchId, new Date(Date.now() + 4_000));
    return batch.payAt!;
  }

  /**
   * Until the batch leaves SCHEDULED: each look reads the sandbox first, then the batch, so
   * a look that still finds it SCHEDULED saw the sandbox while it waited. Returns those looks.
   */
  async function nothingSentWhileScheduled(rig: FaultRig, batchId: string): Promise<number> {
    let looks = 0;
    await until(
      'the batch to be released',
      async () => {
        const sent = (await rig.sb.allEffects()).filter((payment) => payment.paymentId.startsWith(`${batchId}-`));
        const { status } = await rig.prisma.batch.findUniqueOrThrow({ where: { id: batchId }, select: { status: true } });
        if (status !== 'SCHEDULED') return true;
        looks++;
        expect(
          sent.map((payment) => payment.paymentId),
          'the sandbox saw a create for a batch still SCHEDULED',
        ).toEqual([]);
        return false;
      },
      { everyMs: 100, abort: () => rig.firstUnexpectedExit(), diagnose: () => rig.diagnose(batchId) },
    );
    return looks;
  }

  /** No row left PENDING before payAt, on the database clock. */
  async function firstRowMoveAt(rig: FaultRig, batchId: string): Promise<Date | null> {
    const [row] = await rig.prisma.$queryRawUnsafe<Array<{ first: Date | null }>>(
      `SELECT min("updatedAt") AS first FROM "BatchItem" WHERE "batchId" = $1 AND status <> 'PENDING'`,
      batchId,
    );
    return row?.first ?? null;
  }

  it(
    'sends nothing before its time, is released once by two racing workers, and pays each row once',
    async () => {
      const summary = scenario.summary('scheduled: two workers race to release');
      const rig = await scenario.start();
      await recordBatchMoves(rig);
      const batch = await scheduledAnHourAhead(rig, payroll(40).csv, 'scheduled, two workers');
      rig.startWorker();
      rig.startWorker();
      await workersRunning(rig);
      const payAt = await dueSoon(rig, batch.id);
      const looks = await nothingSentWhileScheduled(rig, batch.id);
      summary.set({ looksWhileScheduled: looks });
      expect(looks, 'the sandbox was looked at while the batch waited').toBeGreaterThan(0);

      await rig.waitForBatchEnd(batch.id);
      const releases = await releasesOf(rig, batch.id);
      expect(releases, 'released exactly once').toHaveLength(1);
      expect(releases[0]!.at.getTime()).toBeGreaterThanOrEqual(payAt.getTime());
      expect((await firstRowMoveAt(rig, batch.id))!.getTime()).toBeGreaterThanOrEqual(payAt.getTime());
      const result = await reconcile(rig, batch.id);
      summary.reconciled(result);
      expect(result.violations, describeViolations(result)).toEqual([]);
      expect(rig.unexpectedExits()).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'a worker killed at the release loses nothing and doubles nothing: one statement, done or not',
    async () => {
      const summary = scenario.summary('scheduled: workers killed at the release');
      const rig = await scenario.start();
      await recordBatchMoves(rig);
      const batch = await scheduledAnHourAhead(rig, payroll(30).csv, 'scheduled, killed at release');
      const first = [rig.startWorker(), rig.startWorker()];
      await workersRunning(rig);
      await dueSoon(rig, batch.id);
      // The database clock reaches payAt: the kills land before, during or just after a sweep's release.
      await until('the database clock to reach payAt', async () => {
        const [row] = await rig.prisma.$queryRawUnsafe<Array<{ due: boolean }>>(
          `SELECT now() >= "payAt" AS due FROM "Batch" WHERE id = $1`,
          batch.id,
        );
        return row?.due === true;
      });
      await Promise.all(first.map((worker) => worker.kill()));
      const statusAtKill = (await rig.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } })).status;
      summary.set({ kills: 2, statusAtKill });
      rig.startWorker();

      await rig.waitForBatchEnd(batch.id);
      expect(await releasesOf(rig, batch.id), 'released exactly once').toHaveLength(1);
      const result = await reconcile(rig, batch.id);
      summary.reconciled(result);
      expect(result.violations, describeViolations(result)).toEqual([]);
      expect(rig.unexpectedExits()).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'rescheduled while waiting it pays at the new time; cancelled while waiting it pays nothing',
    async () => {
      const summary = scenario.summary('scheduled: reschedule and cancel while waiting');
      const rig = await scenario.start();
      await recordBatchMoves(rig);
      const kept = await scheduledAnHourAhead(rig, payroll(10).csv, 'rescheduled');
      const dropped = await scheduledAnHourAhead(rig, payroll(11).csv, 'cancelled');
      rig.startWorker();
      await workersRunning(rig);
      const cancelled = await rig.runtime.services.batches.cancel(dropped.id);
      expect(cancelled.status).toBe('CANCELLED');
      await dueSoon(rig, kept.id);
      await nothingSentWhileScheduled(rig, kept.id);
      await rig.waitForBatchEnd(kept.id);
      const result = await reconcile(rig, kept.id);
      summary.reconciled(result);
      expect(result.violations, describeViolations(result)).toEqual([]);

      // The worker that paid the other batch ran sweeps all along: the cancelled one was never released or sent.
      expect(await releasesOf(rig, dropped.id)).toEqual([]);
      expect((await rig.sb.allEffects()).filter((payment) => payment.paymentId.startsWith(`${dropped.id}-`))).toEqual([]);
      // Rows held as repeats of the other batch stay held; every other row is cancelled.
      const rows = await rig.prisma.batchItem.groupBy({ by: ['status'], where: { batchId: dropped.id }, _count: { _all: true } });
      expect(rows.map((group) => group.status).filter((status) => status !== 'DUPLICATE')).toEqual(['CANCELLED']);
      const trail = await rig.prisma.auditEvent.findMany({ where: { batchId: kept.id, action: 'batch.reschedule' } });
      expect(trail).toHaveLength(1);
    },
    SCENARIO_TIMEOUT_MS,
  );
});

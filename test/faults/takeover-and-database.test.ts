import { randomInt } from 'node:crypto';
import { expect, it } from 'vitest';
import { activeStatuses, describeFaultSuite, FaultRig, SCENARIO_TIMEOUT_MS, until, useFaultScenario } from '../support/fault-rig.ts';
import { payroll } from '../support/fault-payroll.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';
import { atScale, counted } from '../support/fault-scale.ts';

/** The paused worker's batch, and how far into it the pause lands: 10,000 rows in CI (FAULT_SCALE=full). */
const PAUSED = atScale({ quick: { rows: 3_000, warmup: [200, 800] }, full: { rows: 10_000, warmup: [200, 2_000] } });

describeFaultSuite('fault suite: a paused worker, and the database cutting connections', () => {
  const scenario = useFaultScenario();

  /**
   * A worker frozen mid-work (SIGSTOP: a long GC pause, a VM migration) loses its rows
   * when its lease runs out; when it wakes, the answers and writes it had in hand are
   * stale. They must change nothing, and no row may be paid twice.
   */
  it(
    `SIGSTOP one of 3 workers over ${counted(PAUSED.rows)} rows until its rows are taken over, then SIGCONT`,
    async () => {
      const summary = scenario.summary(`SIGSTOP one of 3 workers over ${counted(PAUSED.rows)} rows`);
      const rig = await scenario.start({ sandbox: { faults: { latencyMs: 5, jitterMs: 60 } } });
      const batch = await rig.importApproved(
        payroll(PAUSED.rows, { success: 90, executeFailed: 3, createFailed: 2, inProgress: 4, inProgressFailed: 1 }).csv,
        'SIGSTOP',
      );
      for (let i = 0; i < 3; i++) rig.startWorker();

      // Pause at a random point of the first part of the run.
      const warmup = randomInt(PAUSED.warmup[0]!, PAUSED.warmup[1]!);
      await until(`${warmup} rows to settle`, async () => (await rig.progress(batch.id)).settled >= warmup, {
        abort: () => rig.noWorkerLeft(),
        diagnose: () => rig.diagnose(batch.id),
      });

      let victim: Awaited<ReturnType<FaultRig['workerHoldingRows']>>;
      let held: Array<{ id: bigint; line: number; status: string; leaseOwner: string | null }> = [];
      for (;;) {
        victim = await rig.workerHoldingRows(batch.id, (candidates) => candidates[randomInt(candidates.length)]!);
        if (victim === undefined) throw new Error('the batch ended before a worker could be paused holding rows');
        victim.signal('SIGSTOP');
        // Statements it had already sent may still commit: wait until its rows stop changing.
        const snapshot = () =>
          rig.prisma.batchItem.findMany({
            where: { batchId: batch.id, leaseOwner: victim!.owner!, status: { in: [...activeStatuses] } },
            select: { id: true, line: true, status: true, leaseOwner: true },
            orderBy: { id: 'asc' },
          });
        let previous = JSON.stringify(await snapshot(), (_, v) => (typeof v === 'bigint' ? String(v) : v));
        held = await until('the paused worker’s rows to stop changing', async () => {
          const rows = await snapshot();
          const now = JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? String(v) : v));
          if (now === previous) return rows;
          previous = now;
          return undefined;
        });
        if (held.length > 0) break;
        victim.signal('SIGCONT');
      }

      const heldIds = held.map((row) => row.id);
      const takenOver = await until(
        'another worker to take over a row of the paused one',
        async () => {
          const rows = await rig.prisma.batchItem.findMany({
            where: { id: { in: heldIds } },
            select: { line: true, status: true, leaseOwner: true },
          });
          const moved = rows.filter((row) => row.leaseOwner !== victim!.owner);
          return moved.length > 0 ? moved : undefined;
        },
        { abort: () => rig.noWorkerLeft(), diagnose: () => rig.diagnose(batch.id) },
      );
      victim.signal('SIGCONT');
      summary.set({ stops: 1, pausedHolding: held.length, takenOverWhilePaused: takenOver.length });

      await rig.waitForBatchEnd(batch.id);
      const result = await reconcile(rig, batch.id);
      summary.reconciled(result);
      expect.soft(victim.alive, 'the paused worker carries on after SIGCONT').toBe(true);
      expect.soft(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
      expect(result.violations, describeViolations(result)).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  /**
   * PostgreSQL restarts, failovers and idle-connection killers end sessions under a
   * running worker. A worker must ride through it (reconnect, and resume what it was
   * doing through its leases), not exit.
   */
  it(
    'PostgreSQL backends terminated in bursts mid-batch: no worker exits, the batch finishes',
    async () => {
      const summary = scenario.summary('PostgreSQL backends terminated in bursts');
      const rig = await scenario.start({ sandbox: { faults: { latencyMs: 10, jitterMs: 20 } } });
      const batch = await rig.importApproved(
        payroll(1_500, { success: 88, executeFailed: 4, createFailed: 2, inProgress: 6 }).csv,
        'backends terminated',
      );
      for (let i = 0; i < 2; i++) rig.startWorker();
      const admin = await scenario.admin(rig.databaseUrl);
      const firstExit = () => rig.firstUnexpectedExit();

      let terminated = 0;
      const bursts = 5;
      for (let burst = 0; burst < bursts; burst++) {
        // Each burst lands while rows are in flight, and only after the workers recovered from the last one.
        const before = await until('the progress to be readable', async () => rig.progress(batch.id));
        const rows = randomInt(30, 120);
        await until(
          `${rows} more rows to settle before burst ${burst + 1}`,
          async () => (await rig.progress(batch.id)).settled >= before.settled + rows,
          { abort: () => firstExit() ?? rig.noWorkerLeft(), diagnose: () => rig.diagnose(batch.id) },
        );
        await rig.workerHoldingRows(batch.id);
        // Several rounds back to back: connections opened again at once are cut too.
        for (let round = 0; round < 3; round++) {
          const killed = await admin.query<{ ok: boolean }>(
            'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
          );
          terminated += killed.rows.filter((row) => row.ok).length;
        }
        summary.set({ bursts: burst + 1, backendsTerminated: terminated });
      }

      await rig.waitForBatchEnd(batch.id, { abort: firstExit });
      const result = await reconcile(rig, batch.id);
      summary.reconciled(result);
      expect
        .soft(
          rig.workers.map((w) => ({ worker: w.name, exitCode: w.exitStatus?.code ?? null, signal: w.exitStatus?.signal ?? null })),
          rig.unexpectedExits().join('\n'),
        )
        .toEqual(rig.workers.map((w) => ({ worker: w.name, exitCode: null, signal: null })));
      expect(result.violations, describeViolations(result)).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );
});

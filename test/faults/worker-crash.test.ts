import { randomInt } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeFaultSuite, SCENARIO_TIMEOUT_MS, until, useFaultScenario } from '../support/fault-rig.ts';
import { payroll } from '../support/fault-payroll.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';
import { heldAnswers, queueFault, releaseHeld } from '../support/fault-sandbox.ts';
import { atScale, counted } from '../support/fault-scale.ts';

/** Kills over rows: the 30 over 2,000 in CI (FAULT_SCALE=full), 12 over 800 in a contributor's npm test. */
const KILLS = atScale({ quick: { rows: 800, kills: 12 }, full: { rows: 2_000, kills: 30 } });

/**
 * Worker processes die (SIGKILL: no shutdown hook runs) in the middle of paying. Every
 * row must still end paid at most once and settled, by whichever worker takes it over
 * once its lease runs out.
 */
describeFaultSuite('fault suite: worker processes killed mid-batch', () => {
  const scenario = useFaultScenario();

  it(
    `SIGKILL at random moments, at least ${KILLS.kills} kills over ${counted(KILLS.rows)} rows with 3 workers`,
    async () => {
      const summary = scenario.summary(`SIGKILL x${KILLS.kills} over ${counted(KILLS.rows)} rows`);
      // Latency keeps each row in flight long enough for a kill to land inside it.
      const rig = await scenario.start({ sandbox: { faults: { latencyMs: 20, jitterMs: 30 } } });
      const file = payroll(KILLS.rows, { success: 85, executeFailed: 4, createFailed: 3, inProgress: 6, inProgressFailed: 2 });
      const batch = await rig.importApproved(file.csv, 'random SIGKILLs');
      for (let i = 0; i < 3; i++) rig.startWorker();

      const target = KILLS.kills;
      let kills = 0;
      const killedHolding: Record<string, number> = {};
      while (kills < target) {
        const before = await rig.progress(batch.id);
        if (before.active === 0) break;
        // Spread the kills over the batch whatever the machine's speed: a random number of
        // rows between kills, sized so the remaining kills fit in the remaining rows.
        const share = Math.max(2, Math.floor(before.active / (target - kills + 5)));
        const rows = randomInt(Math.ceil(share / 2), Math.ceil(share * 1.5) + 1);
        await until(
          `${rows} more rows to settle`,
          async () => {
            const now = await rig.progress(batch.id);
            return now.settled >= before.settled + rows || now.active === 0;
          },
          { abort: () => rig.noWorkerLeft(), diagnose: () => rig.diagnose(batch.id) },
        );
        // Only a worker that holds rows right now: the kill lands mid-work, not during start-up.
        const victim = await rig.workerHoldingRows(batch.id, (candidates) => candidates[randomInt(candidates.length)]!);
        if (victim === undefined) break;
        const holding = await rig.prisma.batchItem.groupBy({
          by: ['status'],
          where: { batchId: batch.id, leaseOwner: victim.owner! },
          _count: { _all: true },
        });
        await victim.kill();
        kills++;
        for (const group of holding) killedHolding[group.status] = (killedHolding[group.status] ?? 0) + group._count._all;
        summary.set({ kills, killedHolding: JSON.stringify(killedHolding) });
        rig.startWorker();
      }

      await rig.waitForBatchEnd(batch.id);
      const result = await reconcile(rig, batch.id);
      summary.reconciled(result);
      expect.soft(kills, `the batch ended before ${target} kills could land mid-work`).toBeGreaterThanOrEqual(target);
      expect.soft(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
      expect(result.violations, describeViolations(result)).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  for (const operation of ['create', 'execute'] as const) {
    it(
      `SIGKILL after ${operation} took effect upstream and before its answer was recorded: the next worker reads it back and pays once`,
      async () => {
        const summary = scenario.summary(`SIGKILL with the ${operation} answer held`);
        const rig = await scenario.start();
        const batch = await rig.importApproved(payroll(20).csv, `killed while ${operation} answer held`);
        // The first such call takes effect, and its answer waits until released.
        await queueFault(rig.sb, { operation, kind: 'hold-after', times: 1 });
        const first = rig.startWorker({ WORKER_CONCURRENCY: '2' });

        const held = await until(`the sandbox to hold a ${operation} answer`, async () => (await heldAnswers(rig.sb))[0], {
          abort: () => rig.noWorkerLeft(),
          diagnose: () => rig.diagnose(batch.id),
        });
        expect(held.paymentId, 'the sandbox names the held payment').toBeDefined();
        const paymentId = held.paymentId!;
        const before = await rig.prisma.batchItem.findUniqueOrThrow({ where: { paymentId } });
        await first.kill();
        summary.set({ kills: 1, heldRowWas: before.status });
        await releaseHeld(rig.sb);
        rig.startWorker();

        await rig.waitForBatchEnd(batch.id);
        const result = await reconcile(rig, batch.id);
        summary.reconciled(result);
        const row = await rig.prisma.batchItem.findFirstOrThrow({ where: { batchId: batch.id, line: before.line } });
        const effects = await rig.sb.effects(paymentId);
        summary.set({ heldRowEnds: row.status, heldPayment: JSON.stringify(effects) });
        expect.soft(before.status, 'the state the killed worker left').toBe(operation === 'create' ? 'CREATING' : 'EXECUTING');
        // The upstream answers reads normally, so reading back settles it: no person needed.
        expect.soft(row, 'the held row ends paid under its first paymentId').toMatchObject({ status: 'COMPLETED', paymentId });
        expect.soft(effects, 'created and executed once; execute never sent again after the read-back').toMatchObject({
          creates: 1,
          executions: 1,
          ...(operation === 'execute' ? { executeCalls: 1 } : {}),
        });
        expect.soft(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
        expect(result.violations, describeViolations(result)).toEqual([]);
      },
      SCENARIO_TIMEOUT_MS,
    );
  }
});

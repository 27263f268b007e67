import { expect, it } from 'vitest';
import { describeFaultSuite, SCENARIO_TIMEOUT_MS, until, useFaultScenario } from '../support/fault-rig.ts';
import { payroll } from '../support/fault-payroll.ts';
import { heldAnswers, queueFault, releaseHeld, upstreamEffects } from '../support/fault-sandbox.ts';
import type { PaymentEffects } from '../../src/sandbox/ledger/ledger.ts';

/**
 * Issue 37, finding 2: a cancel was acknowledged while a worker frozen past its lease held
 * rows about to be executed; another worker took them over, read them back READY and
 * executed them 50 s after the cancel, and 21 creates were sent again. Once a cancel is
 * answered, no create and no execute for its batch may leave any process, whoever holds
 * the lease (decision 0027).
 */
describeFaultSuite('fault suite: a cancel binds every process', () => {
  const scenario = useFaultScenario();

  it(
    'a worker frozen mid-create and mid-execute, the batch cancelled, its leases lapsing: nothing is sent after the cancel is answered',
    async () => {
      const summary = scenario.summary('cancel with a frozen worker');
      const rig = await scenario.start({ sandbox: { faults: { latencyMs: 20, jitterMs: 0 } } });
      // The first create takes effect and its answer is held (its row stays CREATING); the first
      // execute is held before it acts (its row EXECUTING, the payment READY upstream).
      await queueFault(rig.sb, { operation: 'create', kind: 'hold-after' });
      await queueFault(rig.sb, { operation: 'execute', kind: 'hold-before' });
      const batch = await rig.importApproved(payroll(400, { success: 1 }).csv, 'cancel with a frozen worker');
      const frozen = rig.startWorker();
      const held = await until(
        'a create and an execute held at the partner',
        async () => {
          const calls = await heldAnswers(rig.sb);
          return calls.length === 2 ? calls : undefined;
        },
        { abort: () => rig.noWorkerLeft(), diagnose: () => rig.diagnose(batch.id) },
      );
      frozen.signal('SIGSTOP');
      const heldIds = held.map((call) => call.paymentId!);

      const cancelled = await rig.runtime.services.batches.cancel(batch.id);
      const atAnswer = callsOf(await upstreamEffects(rig.sb), batch.id);
      expect(cancelled.status).toBe('CANCELLED');
      // By the answer no row may be held in a state that sends: the frozen worker's leases have ended.
      const sending = await rig.prisma.batchItem.count({
        where: { batchId: batch.id, status: { in: ['CREATING', 'EXECUTING'] }, leaseExpiresAt: { gt: new Date() } },
      });
      expect.soft(sending, 'rows held in a sending state when the cancel is answered').toBe(0);

      // The held calls are answered (to a frozen process), and another worker takes its rows over.
      await releaseHeld(rig.sb);
      rig.startWorker();
      await until(
        'the cancelled batch to finish',
        async () => (await rig.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } })).finishedAt !== null,
        {
          abort: () => rig.firstUnexpectedExit(),
          diagnose: () => rig.diagnose(batch.id),
        },
      );
      // The frozen worker wakes with its answers in hand, then stops once its rows are done with.
      frozen.signal('SIGCONT');
      frozen.signal('SIGTERM');
      await frozen.exited;

      const after = callsOf(await upstreamEffects(rig.sb), batch.id);
      const sentAfter = [...after].filter(([id, calls]) => {
        const before = atAnswer.get(id);
        return before === undefined || calls.createCalls > before.createCalls || calls.executeCalls > before.executeCalls;
      });
      const rows = await rig.prisma.batchItem.findMany({
        where: { paymentId: { in: heldIds } },
        select: { paymentId: true, status: true, errorCode: true, errorMessage: true },
      });
      const effects = await upstreamEffects(rig.sb);
      summary.set({ rows: 400, heldAtFreeze: held.length, sentAfterTheCancel: sentAfter.length });

      expect(
        sentAfter.map(([id, calls]) => `${id}: ${JSON.stringify(calls)} (at the answer ${JSON.stringify(atAnswer.get(id) ?? null)})`),
      ).toEqual([]);
      // The two rows say what the partner holds: created, not executed.
      for (const row of rows) {
        expect(row, row.paymentId).toMatchObject({ status: 'CANCELLED', errorCode: 'batch.cancelled-after-create' });
        expect(effects.find((e) => e.paymentId === row.paymentId)).toMatchObject({ status: 'READY', executions: 0 });
      }
      expect(rows).toHaveLength(2);
      expect(
        await rig.prisma.batchItem.count({
          where: { batchId: batch.id, status: { in: ['PENDING', 'CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS'] } },
        }),
      ).toBe(0);
      expect(rig.unexpectedExits()).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );
});

/** Creates and executes the partner received per paymentId of the batch. */
function callsOf(effects: PaymentEffects[], batchId: string): Map<string, { createCalls: number; executeCalls: number }> {
  return new Map(
    effects
      .filter((e) => e.paymentId.startsWith(`${batchId}-`))
      .map((e) => [e.paymentId, { createCalls: e.createCalls, executeCalls: e.executeCalls }]),
  );
}

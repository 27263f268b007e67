import { expect, it } from 'vitest';
import type { FaultRates } from '../../src/sandbox/faults.ts';
import { describeFaultSuite, SCENARIO_TIMEOUT_MS, useFaultScenario } from '../support/fault-rig.ts';
import { payroll, type OutcomeMix } from '../support/fault-payroll.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';
import { pendingFaults, queueFault, setFaultRates } from '../support/fault-sandbox.ts';

/**
 * The upstream misbehaves on about one call in ten: errors before and after the effect,
 * cut connections, answers slower than the client waits, HTML pages from a proxy, 2xx
 * bodies cut short. Then the failed rows are paid again twice (retryFailedItems), each
 * time under a new paymentId: a row whose first payment went through while the worker
 * thought it failed would be paid twice, which is what the reconciliation looks for.
 */
describeFaultSuite('fault suite: upstream faults on create and execute, then two retries', () => {
  const scenario = useFaultScenario();

  /** Client timeouts well under the sandbox's slow answers, so `slow` means a timeout. */
  const workerEnv = { PAYOUT_HEADERS_TIMEOUT_MS: '2000', PAYOUT_BODY_TIMEOUT_MS: '2000', PAYOUT_MAX_RETRIES: '3' };
  const mix: OutcomeMix = { success: 70, executeFailed: 8, createFailed: 5, inProgress: 10, inProgressFailed: 4 };

  async function runWithTwoRetries(
    name: string,
    rates: Partial<FaultRates>,
    options: { mix: OutcomeMix; queued: Array<Parameters<typeof queueFault>[1]> },
  ) {
    const summary = scenario.summary(name);
    const rig = await scenario.start({ workerEnv });
    const file = payroll(400, options.mix);
    const batch = await rig.importApproved(file.csv, name);
    // Faults start after the import, which reads providers and the balance from the same sandbox.
    await setFaultRates(rig.sb, rates);
    for (const rule of options.queued) await queueFault(rig.sb, rule);
    rig.startWorker();
    rig.startWorker();

    const rounds: string[] = [];
    let progress = await rig.waitForBatchEnd(batch.id);
    rounds.push(JSON.stringify(progress.byStatus));
    for (let retry = 1; retry <= 2; retry++) {
      await rig.runtime.services.batches.retryFailed(batch.id);
      progress = await rig.waitForBatchEnd(batch.id);
      rounds.push(JSON.stringify(progress.byStatus));
      summary.set({ rounds: rounds.join(' -> ') });
    }
    // Proof the scripted faults hit calls: a sandbox ignoring them would make this pass for nothing.
    expect.soft(await pendingFaults(rig.sb), 'queued faults never used').toEqual([]);
    // Settling reads must see the truth now, or a payment could stay IN_PROGRESS for good.
    await setFaultRates(rig.sb, {});
    const result = await reconcile(rig, batch.id);
    summary.reconciled(result);
    return { rig, batch, file, result };
  }

  it(
    '5xx Error objects before and after the effect, dropped connections, answers past the client timeout',
    async () => {
      const { rig, result } = await runWithTwoRetries(
        '5xx JSON, drops, slow answers, two retries',
        {
          latencyMs: 5,
          jitterMs: 10,
          failBeforeRate: 0.02,
          failAfterRate: 0.03,
          dropBeforeRate: 0.015,
          dropRate: 0.02,
          slowRate: 0.015,
          slowMs: 4_000,
        },
        {
          mix,
          // The first calls of each kind meet each fault for certain, whatever the dice say.
          queued: (['create', 'execute'] as const).flatMap((operation) =>
            (['fail-after', 'drop-before', 'drop-after', 'slow'] as const).map((kind) => ({ operation, kind, times: 1 })),
          ),
        },
      );
      expect.soft(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
      expect(result.violations, describeViolations(result)).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'HTML 5xx pages before and after the effect, 2xx bodies cut short, and a status errorCode the client has never seen',
    async () => {
      const { rig, batch, file, result } = await runWithTwoRetries(
        'HTML 5xx, truncated 2xx, new errorCode, two retries',
        {
          latencyMs: 5,
          jitterMs: 10,
          failBeforeHtmlRate: 0.03,
          failAfterHtmlRate: 0.035,
          truncateRate: 0.035,
          rateOperations: ['create', 'execute'],
        },
        {
          mix: { ...mix, executeFailedNewCode: 5 },
          queued: (['create', 'execute'] as const).flatMap((operation) =>
            (['fail-after-html', 'truncate-after'] as const).map((kind) => ({ operation, kind, times: 1 })),
          ),
        },
      );
      // A failure code newer than the spec is still a failure, kept as sent, never a puzzle.
      const newCodeLines = [...file.outcomes].filter(([, outcome]) => outcome === 'executeFailedNewCode').map(([line]) => line);
      const newCodeRows = await rig.prisma.batchItem.findMany({ where: { batchId: batch.id, line: { in: newCodeLines } } });
      const keptCode = newCodeRows.filter((row) => row.status === 'FAILED' && row.errorCode === 'PROVIDER_NEW_CODE_2027');
      expect.soft(keptCode.length, 'rows failing with PROVIDER_NEW_CODE_2027 end FAILED with that code').toBeGreaterThan(0);
      expect
        .soft(
          newCodeRows
            .filter((row) => row.status !== 'NEEDS_REVIEW' && !keptCode.includes(row))
            .map((row) => `line ${row.line}: ${row.status} ${row.errorCode}`),
          'rows failing with PROVIDER_NEW_CODE_2027 that ended otherwise',
        )
        .toEqual([]);
      expect.soft(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
      expect(result.violations, describeViolations(result)).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );
});

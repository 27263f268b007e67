import { randomInt } from 'node:crypto';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { describeFaultSuite, FaultRig, SCENARIO_TIMEOUT_MS, ScenarioSummary, until } from '../support/fault-rig.ts';
import { terminateBackends } from '../support/fault-database.ts';
import { payroll } from '../support/fault-payroll.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';

/**
 * Issue 27: a PostgreSQL backend ended inside a transaction (a failover, an idle-session
 * killer, pg_terminate_backend) stopped the gateway with an unhandled 'error' event. Every
 * backend of the database is ended again and again while the gateway process (workers apart,
 * as production runs it) serves what it serves: webhooks, approvals, imports, review and
 * cancel. No process may exit; what failed is retried or refused with a clear error.
 */
describeFaultSuite('fault suite: the database ends every connection under the gateway', () => {
  let rig: FaultRig | undefined;
  let admin: pg.Client | undefined;
  let summary: ScenarioSummary | undefined;
  afterEach(async () => {
    summary?.print();
    summary = undefined;
    await admin?.end().catch(() => {});
    admin = undefined;
    await rig?.close();
    rig = undefined;
  });

  const connectAdmin = async (url: string) => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    return admin;
  };

  it('a batch paid with webhooks arriving: no process exits, every row is paid once, every webhook is recorded', async () => {
    summary = new ScenarioSummary('backends terminated while webhooks arrive');
    // Enough attempts that a notification outlives every burst; the partner repeats until a 2xx.
    rig = await FaultRig.start({ webhooks: true, sandbox: { faults: { latencyMs: 10, jitterMs: 20 }, webhookAttempts: 14 } });
    const { process: gateway } = await rig.startGateway();
    const batch = await rig.importApproved(payroll(1_000, { success: 88, executeFailed: 4, createFailed: 2, inProgress: 6 }).csv, 'webhooks under terminations');
    for (let i = 0; i < 2; i++) rig.startWorker();
    const db = await connectAdmin(rig.databaseUrl);
    const exited = () => rig!.gatewayExits()[0] ?? rig!.firstUnexpectedExit();

    // Bursts land while webhooks are being received: each after more of them were recorded.
    let terminated = 0;
    for (let burst = 0; burst < 6; burst++) {
      const recorded = await rig.prisma.webhookDelivery.count().catch(() => 0);
      const more = randomInt(20, 80);
      await until(`${more} more webhooks to be recorded before burst ${burst + 1}`, async () => (await rig!.prisma.webhookDelivery.count()) >= recorded + more || (await rig!.progress(batch.id)).active === 0, {
        abort: exited,
        diagnose: () => rig!.diagnose(batch.id),
      });
      for (let round = 0; round < 3; round++) terminated += await terminateBackends(db);
      summary.set({ bursts: burst + 1, backendsTerminated: terminated });
    }

    await rig.waitForBatchEnd(batch.id, { abort: exited });
    const result = await reconcile(rig, batch.id);
    summary.reconciled(result);

    // The partner repeats a notification until a 2xx: wait until each was accepted once.
    const attempts = await until(
      'every status notification to be accepted',
      async () => {
        const all = (await rig!.sb.raw('GET', '/_sandbox/webhooks')).body.attempts as Array<{ paymentId: string; status: string; delivered: boolean; httpStatus?: number }>;
        const sent = new Set(all.map((a) => `${a.paymentId} ${a.status}`));
        const accepted = new Set(all.filter((a) => a.delivered).map((a) => `${a.paymentId} ${a.status}`));
        return accepted.size === sent.size ? all : undefined;
      },
      { abort: exited },
    );
    const accepted = attempts.filter((a) => a.delivered);
    const refused = attempts.filter((a) => !a.delivered);
    const rows = await rig.prisma.webhookDelivery.findMany({ select: { paymentId: true, status: true } });
    const recorded = new Set(rows.map((row) => `${row.paymentId} ${row.status}`));
    summary.set({ webhooksAccepted: accepted.length, webhooksRefused: refused.length, refusedWith: JSON.stringify([...new Set(refused.map((a) => a.httpStatus ?? 'no answer'))]) });

    expect(rig.gatewayExits(), 'the gateway exited on its own').toEqual([]);
    expect(gateway.alive).toBe(true);
    expect(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
    expect(result.violations, describeViolations(result)).toEqual([]);
    // Each notification the gateway accepted is in its record; one it refused was refused
    // with a status the partner repeats on, never lost behind a 2xx.
    expect(accepted.filter((a) => !recorded.has(`${a.paymentId} ${a.status}`))).toEqual([]);
    expect(rows.length).toBeGreaterThanOrEqual(accepted.length);
    expect(refused.filter((a) => a.httpStatus !== undefined && a.httpStatus !== 503)).toEqual([]);
  }, SCENARIO_TIMEOUT_MS);
});

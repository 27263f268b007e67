import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { addDays, zonedDate } from '../../src/reconciliation/period.ts';
import { DailyReconciliation } from '../../src/reconciliation/schedule.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { killAllWorkers, remoteEnv, spawnWorker } from '../support/processes.ts';
import { reconciliationService } from '../support/reconciliation.ts';
import { startSandbox, type TestSandbox } from '../support/sandbox.ts';
import { apiKeysEnv } from '../support/keys.ts';

const yesterday = () => addDays(zonedDate(new Date(), 'UTC'), -1);

/** The worker's daily run: taken by one worker only, retaken when it failed or its worker died. */
describe.each(testDatabaseKinds())('daily reconciliation on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, database: kind });
  });
  afterAll(() => gw.close());

  const daily = (owner: string, dailyAt = '00:00', now?: () => Date) =>
    new DailyReconciliation(
      {
        prisma: gw.db.prisma,
        query: gw.db.query,
        service: reconciliationService(gw, {}),
        logger: createLogger({ level: 'silent' }),
        owner,
        now,
      },
      { dailyAt, checkEveryMs: 60_000, retryAfterMs: 15 * 60_000 },
    );
  const runsOfYesterday = () => gw.db.prisma.reconciliationRun.findMany({ where: { scheduleKey: `daily:${yesterday()}` } });

  it('is not due before its time of day', async () => {
    const halfPastMidnight = () => new Date(`${zonedDate(new Date(), 'UTC')}T00:30:00Z`);
    expect(await daily('early', '01:00', halfPastMidnight).tick()).toBeNull();
    expect(await runsOfYesterday()).toEqual([]);
  });

  it('is taken by exactly one of two workers that look at once', async () => {
    const results = await Promise.all([daily('worker-a').tick(), daily('worker-b').tick()]);
    expect(results.filter((id) => id !== null)).toHaveLength(1);
    const runs = await runsOfYesterday();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'COMPLETED', trigger: 'schedule', periodFrom: yesterday(), periodTo: yesterday() });
    // Done: a later look takes nothing.
    expect(await daily('worker-c').tick()).toBeNull();
    const audits = await gw.db.prisma.auditEvent.findMany({ where: { action: 'reconciliation.start', actor: 'schedule' } });
    expect(audits).toHaveLength(1);
  });

  it('retakes a run that failed a while ago, but not one that just failed', async () => {
    const [run] = await runsOfYesterday();
    await gw.db.prisma.reconciliationRun.update({
      where: { id: run!.id },
      data: { status: 'FAILED', error: 'upstream down', finishedAt: new Date() },
    });
    expect(await daily('too-soon').tick()).toBeNull();
    await gw.db.prisma.$executeRaw`UPDATE "ReconciliationRun" SET "finishedAt" = now() - interval '1 hour' WHERE id = ${run!.id}`;
    expect(await daily('retry').tick()).toBe(run!.id);
    expect(await gw.db.prisma.reconciliationRun.findUniqueOrThrow({ where: { id: run!.id } })).toMatchObject({
      status: 'COMPLETED',
      error: null,
    });
  });

  it('takes over a run whose worker died (its lease expired), and not one still leased', async () => {
    const [run] = await runsOfYesterday();
    await gw.db.prisma
      .$executeRaw`UPDATE "ReconciliationRun" SET status = 'RUNNING', "finishedAt" = NULL, "leaseOwner" = 'dead', "leaseExpiresAt" = now() + interval '1 hour' WHERE id = ${run!.id}`;
    expect(await daily('other').tick()).toBeNull();
    await gw.db.prisma.$executeRaw`UPDATE "ReconciliationRun" SET "leaseExpiresAt" = now() - interval '1 second' WHERE id = ${run!.id}`;
    expect(await daily('heir').tick()).toBe(run!.id);
    expect((await runsOfYesterday())[0]).toMatchObject({ status: 'COMPLETED', leaseOwner: null });
  });

  it('marks a run another process left RUNNING as FAILED when it next looks', async () => {
    const today = zonedDate(new Date(), 'UTC');
    const left = await gw
      .services()
      .reconciliations.create({ from: today, to: today, trigger: 'graphql', actor: { actor: 'test', role: null, requestId: null } });
    // What it had staged: masked upstream payments, which must not outlive the run.
    await gw.db.prisma.reconciliationUpstreamPayment.create({
      data: {
        runId: left.id,
        paymentId: 'left-1',
        createdAt: new Date(),
        inPeriod: true,
        status: 'COMPLETED',
        amount: '1.00',
        currency: 'RUB',
        providerCode: 'sbp-b2c',
        recipient: {},
      },
    });
    await gw.db.prisma.$executeRaw`UPDATE "ReconciliationRun" SET "leaseExpiresAt" = now() - interval '1 second' WHERE id = ${left.id}`;
    expect(await daily('sweeper').tick()).toBeNull();
    expect(await gw.db.prisma.reconciliationRun.findUniqueOrThrow({ where: { id: left.id } })).toMatchObject({
      status: 'FAILED',
      error: 'the process running it stopped before it finished; start it again',
    });
    expect(await gw.db.prisma.reconciliationUpstreamPayment.count({ where: { runId: left.id } })).toBe(0);
    // Also on a look before the daily run is due.
    const early = await gw
      .services()
      .reconciliations.create({ from: today, to: today, trigger: 'graphql', actor: { actor: 'test', role: null, requestId: null } });
    await gw.db.prisma.$executeRaw`UPDATE "ReconciliationRun" SET "leaseExpiresAt" = now() - interval '1 second' WHERE id = ${early.id}`;
    expect(await daily('early-sweeper', '23:59', () => new Date(`${today}T00:30:00Z`)).tick()).toBeNull();
    expect(await gw.db.prisma.reconciliationRun.findUniqueOrThrow({ where: { id: early.id } })).toMatchObject({ status: 'FAILED' });
  });

  it('shows the latest completed run in /metrics: discrepancies per code, open ones, when it finished', async () => {
    await gw.sb.raw('POST', '/_sandbox/payments', {
      body: JSON.stringify({ amount: '10.00' }),
      headers: { 'content-type': 'application/json' },
    });
    const today = zonedDate(new Date(), 'UTC');
    const run = await gw
      .services()
      .reconciliations.run({ from: today, to: today, trigger: 'cli', actor: { actor: 'test', role: null, requestId: null } });
    expect(run.countsByCode).toEqual({ UNKNOWN_TO_GATEWAY: 1 });
    const metrics = await gw.http('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^payout_reconciliation_discrepancies\{code="UNKNOWN_TO_GATEWAY"\} 1$/m);
    expect(metrics.text).toMatch(/^payout_reconciliation_discrepancies\{code="MISSING_UPSTREAM"\} 0$/m);
    expect(metrics.text).toMatch(/^payout_reconciliation_open_discrepancies 1$/m);
    const last = Number(/^payout_reconciliation_last_success_timestamp_seconds (\S+)$/m.exec(metrics.text)![1]);
    expect(last).toBe(run.finishedAt!.getTime() / 1000);
  });

  it('stops a run taken over while it worked (its lease had lapsed): it writes nothing more over the new holder', async () => {
    await gw.sb.raw('POST', '/_sandbox/payments', {
      body: JSON.stringify({ amount: '11.00' }),
      headers: { 'content-type': 'application/json' },
    });
    const today = zonedDate(new Date(), 'UTC');
    const service = gw.services().reconciliations;
    const run = await service.create({ from: today, to: today, trigger: 'cli', actor: { actor: 'test', role: null, requestId: null } });
    // The run's first list read is held; meanwhile its lease lapses and another process takes it.
    await gw.sb.addFault({ operation: 'list', kind: 'hold-after' });
    const working = service.execute(run.id, run.leaseOwner!);
    await eventually(async () => expect((await gw.sb.faultState()).held).toBe(1));
    await gw.db.prisma
      .$executeRaw`UPDATE "ReconciliationRun" SET "leaseOwner" = 'heir/1', "leaseExpiresAt" = now() + interval '1 hour' WHERE id = ${run.id}`;
    await gw.sb.releaseHeld();
    const left = await working;
    expect(left).toMatchObject({ status: 'RUNNING', leaseOwner: 'heir/1', finishedAt: null });
    // It found an unknown payment to report, but the run is the heir's: nothing written,
    // not even to the staging table the heir reads.
    expect(await gw.db.prisma.reconciliationDiscrepancy.count({ where: { runId: run.id } })).toBe(0);
    expect(await gw.db.prisma.reconciliationUpstreamPayment.count({ where: { runId: run.id } })).toBe(0);
    await gw.db.prisma
      .$executeRaw`UPDATE "ReconciliationRun" SET status = 'FAILED', "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "finishedAt" = now() WHERE id = ${run.id}`;
  });
});

const postgres = testDatabaseKinds().find((kind) => kind.name === 'postgresql');

describe.skipIf(postgres === undefined)('daily reconciliation with two worker processes on PostgreSQL', () => {
  let sb: TestSandbox;
  let test: TestDatabase;
  beforeAll(async () => {
    sb = await startSandbox();
    test = await postgres!.create();
    await test.db.migrate();
  });
  afterAll(async () => {
    await killAllWorkers();
    await test?.drop();
    await sb?.close();
  });

  it('runs yesterday once, whichever worker takes it', async () => {
    if (!('databaseUrl' in test.target)) throw new Error('a PostgreSQL test database has a URL');
    const env = {
      ...remoteEnv(test.target.databaseUrl, sb.url),
      GATEWAY_API_KEYS: apiKeysEnv({ ad: 'admin' }),
      RECONCILE_DAILY: 'true',
      RECONCILE_DAILY_AT: '00:00',
      LOG_LEVEL: 'debug',
    };
    const workers = [spawnWorker('daily-a', env), spawnWorker('daily-b', env)];
    // Each looks as it starts: both must have looked (claimed, or found it taken) before counting.
    await eventually(() => {
      for (const worker of workers)
        expect(worker.logTail(400), worker.crashReport()).toMatch(/daily reconciliation (claimed|taken by another worker or done)/);
    }, 120_000);
    await eventually(async () => {
      const runs = await test.db.prisma.reconciliationRun.findMany({ where: { scheduleKey: `daily:${yesterday()}` } });
      expect(runs).toHaveLength(1);
      expect(runs[0]!.status).toBe('COMPLETED');
    }, 120_000);
    const claimedBy = workers.filter((worker) => /daily reconciliation claimed/.test(worker.logTail(400)));
    expect(claimedBy).toHaveLength(1);
    expect(await test.db.prisma.auditEvent.count({ where: { action: 'reconciliation.start' } })).toBe(1);
  });
});

import pg from 'pg';
import { afterEach, describe, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/app/runtime.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import type { Batch } from '../../src/db/generated/client.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { SandboxOptions } from '../../src/sandbox/server.ts';
import { textSource } from './batch.ts';
import { testDatabaseKinds, type TestDatabase } from './database.ts';
import { installTransitionAudit } from './fault-audit.ts';
import type { Reconciliation } from './fault-reconcile.ts';
import { killAllWorkers, remoteEnv, spawnWorker, type WorkerProcess } from './processes.ts';
import { startSandbox, WEBHOOK_SECRET, type TestSandbox } from './sandbox.ts';
import { freePort, GatewayProcess } from './gateway-process.ts';
import { apiKeysEnv, namedApiKeysEnv } from './keys.ts';

/** The people of a rig's gateway, by key name (test/support/keys.ts makes each key). */
export const RIG_KEYS = { uploader: 'operator', approver: 'approver', checker: 'approver' } as const;

const postgres = testDatabaseKinds().find((kind) => kind.name === 'postgresql');

/**
 * The fault suite needs real processes sharing a real PostgreSQL. Without
 * TEST_DATABASE_URL it is skipped where anyone can see it, and fails on CI, where a
 * silently skipped safety net would look like a passing one.
 */
export function describeFaultSuite(name: string, body: () => void): void {
  if (postgres !== undefined) {
    describe(name, body);
  } else if (process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') {
    describe(name, () => {
      it('runs on PostgreSQL', () => {
        throw new Error('TEST_DATABASE_URL is not set: the fault suite runs on PostgreSQL only, and CI must provide one');
      });
    });
  } else {
    const reason = 'TEST_DATABASE_URL is not set; the fault suite runs on PostgreSQL only';
    console.warn(`skipping "${name}": ${reason}`);
    describe.skip(`${name} [skipped: ${reason}]`, body);
  }
}

/** Generous: these only bound a broken run; a passing run never waits for them. */
export const SCENARIO_TIMEOUT_MS = 12 * 60_000;

export const activeStatuses = ['PENDING', 'CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS'] as const;

export interface Progress {
  batchStatus: string;
  total: number;
  active: number;
  /** Rows in a final state or NEEDS_REVIEW. */
  settled: number;
  byStatus: Record<string, number>;
  /** Changes whenever any row is written: a stalled run keeps it still. */
  signature: string;
}

interface UntilOptions {
  limitMs?: number;
  everyMs?: number;
  /** A reason to stop waiting at once (nothing can make the condition true any more). */
  abort?: () => string | undefined;
  /** Extra context for the error when the wait ends without the condition. */
  diagnose?: () => Promise<string>;
}

/**
 * Polls `check` until it returns something other than undefined/false. Errors count as
 * "not yet" (the database may be restarting its connections), the last one is reported.
 */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, options: UntilOptions = {}): Promise<T> {
  const limitMs = options.limitMs ?? 5 * 60_000;
  const deadline = Date.now() + limitMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    const aborted = options.abort?.();
    if (aborted !== undefined || Date.now() > deadline) {
      const context = options.diagnose === undefined ? '' : await options.diagnose().catch((error) => `(no diagnosis: ${String(error)})`);
      const why = aborted ?? `gave up after ${Math.round(limitMs / 1000)} s`;
      throw new Error(`waiting for ${what}: ${why}${lastError === undefined ? '' : `; last error: ${String(lastError)}`}\n${context}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 200));
  }
}

export interface RigOptions {
  sandbox?: Partial<SandboxOptions>;
  /**
   * A gateway process will receive the sandbox's status webhooks (rig.startGateway): its
   * port is chosen now, so the workers give the sandbox its webhookUrl from the start.
   */
  webhooks?: boolean;
  /** Environment for every worker process, over the defaults below. */
  workerEnv?: Record<string, string>;
}

/** Enough for any batch here, so no row fails for want of money. */
export const STARTING_BALANCE = '999999999.00';

/**
 * One scenario's world: a sandbox in this process, a fresh PostgreSQL database, the
 * services a gateway uses to import and approve batches (no worker in this process),
 * and the worker processes the scenario starts.
 */
export class FaultRig {
  readonly workers: WorkerProcess[] = [];
  readonly gateways: GatewayProcess[] = [];
  private spawned = 0;

  private constructor(
    readonly sb: TestSandbox,
    readonly database: TestDatabase,
    readonly databaseUrl: string,
    readonly runtime: Runtime,
    private readonly workerEnv: Record<string, string>,
    /** With `webhooks`: where rig.startGateway listens. */
    readonly gatewayPort: number | undefined,
  ) {}

  static async start(options: RigOptions = {}): Promise<FaultRig> {
    if (postgres === undefined) throw new Error('the fault suite needs TEST_DATABASE_URL');
    const sb = await startSandbox({ balance: STARTING_BALANCE, inProgressMs: 200, ...options.sandbox });
    let database: TestDatabase | undefined;
    try {
      database = await postgres.create();
      const databaseUrl = (database.target as { databaseUrl: string }).databaseUrl;
      const gatewayPort = options.webhooks === true ? await freePort() : undefined;
      const shared = {
        ...remoteEnv(databaseUrl, sb.url),
        GATEWAY_API_KEYS: [apiKeysEnv({ 'fault-suite-key': 'admin' }), namedApiKeysEnv(RIG_KEYS)].join(','),
        ...(gatewayPort === undefined ? {} : { GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}` }),
      };
      // The test's own runtime shares the breaker with the workers and may take a probe's
      // turn: it must probe on the scenario's schedule, not the default one.
      const breakerEnv = Object.fromEntries(Object.entries(options.workerEnv ?? {}).filter(([key]) => key.startsWith('PARTNER_BREAKER_')));
      const config = loadGatewayConfig({
        ...shared,
        ...breakerEnv,
        WORKER_IN_PROCESS: 'false',
        GATEWAY_SINGLE_USER: 'true',
        LOG_LEVEL: 'silent',
      });
      const runtime = await openRuntime(config, createLogger({ level: 'silent' }), {
        db: database.db,
        upstream: { client: sb.client(), webhookSecret: WEBHOOK_SECRET, close: async () => {} },
      });
      await installTransitionAudit(database.db.prisma);
      const workerEnv = {
        ...shared,
        // The start-up line at info names the worker's lease owner (see processes.ts).
        LOG_LEVEL: 'info',
        WORKER_CONCURRENCY: '8',
        // A dead or paused worker's rows are taken over within seconds, not a minute.
        WORKER_LEASE_MS: '2000',
        READ_BACK_INTERVAL_MS: '1000',
        PAYOUT_CONNECT_TIMEOUT_MS: '2000',
        PAYOUT_HEADERS_TIMEOUT_MS: '10000',
        PAYOUT_BODY_TIMEOUT_MS: '10000',
        PAYOUT_MAX_RETRIES: '3',
        ...options.workerEnv,
      };
      return new FaultRig(sb, database, databaseUrl, runtime, workerEnv, gatewayPort);
    } catch (error) {
      await database?.drop();
      await sb.close();
      throw error;
    }
  }

  get prisma() {
    return this.database.db.prisma;
  }

  startWorker(env: Record<string, string> = {}): WorkerProcess {
    const worker = spawnWorker(`w${++this.spawned}`, { ...this.workerEnv, ...env });
    this.workers.push(worker);
    return worker;
  }

  /**
   * The gateway as production runs it beside separate workers (WORKER_IN_PROCESS=false), on
   * the rig's database and sandbox, receiving the sandbox's webhooks when the rig was started
   * with `webhooks`. Its keys are RIG_KEYS by name.
   */
  async startGateway(env: Record<string, string> = {}): Promise<{ process: GatewayProcess; url: string }> {
    const port = this.gatewayPort ?? (await freePort());
    const gateway = GatewayProcess.spawn('gateway', {
      ...this.workerEnv,
      PORT: String(port),
      WORKER_IN_PROCESS: 'false',
      // Its 'listening on' line (info) is how the test learns it is up.
      LOG_LEVEL: 'info',
      ...env,
    });
    this.gateways.push(gateway);
    return { process: gateway, url: await gateway.ready };
  }

  /** What a `payout` CLI process needs to work on the rig's database and sandbox, as an operator's shell would have. */
  async cliEnv(): Promise<Record<string, string>> {
    // A port where no gateway answers: the CLI, a client of the gateway at PORT, must not reach
    // a developer's `npm start` on 4000 (a run beside one failed so) but serve the API itself.
    return { ...this.workerEnv, LOG_LEVEL: 'warn', PORT: String(await freePort()), PAYOUT_GATEWAY_URL: '' };
  }

  /** Gateways that ended without the test ending them. */
  gatewayExits(): string[] {
    return this.gateways
      .filter((gateway) => !gateway.alive && !gateway.killedByTest)
      .map((gateway) => `${gateway.name} exited:\n${gateway.logTail(60)}`);
  }

  liveWorkers(): WorkerProcess[] {
    return this.workers.filter((worker) => worker.alive);
  }

  /** Workers that ended without the test ending them: a crash is a finding in every scenario. */
  unexpectedExits(): string[] {
    return this.workers
      .filter((worker) => !worker.alive && !worker.killedByTest)
      .map((worker) => `${worker.describe()}\n${worker.crashReport()}`);
  }

  /** For aborting a wait: the first worker that exited on its own, named (its crash comes with the diagnosis). */
  firstUnexpectedExit(): string | undefined {
    const worker = this.workers.find((w) => !w.alive && !w.killedByTest);
    return worker === undefined ? undefined : `${worker.describe()} on its own`;
  }

  async importApproved(csv: string, name: string, options: { ignoreBalance?: boolean } = {}): Promise<Batch> {
    const { importer, batches } = this.runtime.services;
    const batch = await importer.import({ source: textSource(csv), name, force: true, uploadedBy: 'fault-suite-uploader' });
    if (batch.status !== 'VALIDATED') {
      const problems = await this.prisma.batchProblem.findMany({ where: { batchId: batch.id }, take: 5 });
      throw new Error(`the fault suite's file did not validate (${batch.status}): ${JSON.stringify(problems)}`);
    }
    return batches.approve(batch.id, { approver: 'fault-suite-approver', ignoreBalance: options.ignoreBalance ?? false });
  }

  async progress(batchId: string): Promise<Progress> {
    const groups = await this.prisma.$queryRaw<Array<{ status: string; n: number; touched: Date | null }>>`
      SELECT status::text AS status, count(*)::int AS n, max("updatedAt") AS touched
      FROM "BatchItem" WHERE "batchId" = ${batchId} GROUP BY status`;
    const batch = await this.prisma.batch.findUniqueOrThrow({ where: { id: batchId }, select: { status: true } });
    const byStatus = Object.fromEntries(groups.map((g) => [g.status, g.n]));
    const total = groups.reduce((sum, g) => sum + g.n, 0);
    const active = groups.filter((g) => (activeStatuses as readonly string[]).includes(g.status)).reduce((sum, g) => sum + g.n, 0);
    const touched = groups.reduce((latest, g) => Math.max(latest, g.touched?.getTime() ?? 0), 0);
    return {
      batchStatus: batch.status,
      total,
      active,
      settled: total - active,
      byStatus,
      signature: `${JSON.stringify(byStatus)}@${touched}`,
    };
  }

  /** Active rows each worker holds under an unexpired lease right now. */
  async leasesByOwner(batchId: string): Promise<Map<string, number>> {
    const rows = await this.prisma.$queryRaw<Array<{ owner: string; n: number }>>`
      SELECT "leaseOwner" AS owner, count(*)::int AS n FROM "BatchItem"
      WHERE "batchId" = ${batchId} AND "leaseOwner" IS NOT NULL AND "leaseExpiresAt" > now()
        AND status::text IN ('PENDING', 'CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS')
      GROUP BY 1`;
    return new Map(rows.map((row) => [row.owner, row.n]));
  }

  /**
   * Waits for a live, running worker to hold at least one active row and resolves to
   * one (chosen by `pick`); to undefined when the batch has no active row left.
   */
  async workerHoldingRows(
    batchId: string,
    pick: (candidates: WorkerProcess[]) => WorkerProcess = (candidates) => candidates[0]!,
  ): Promise<WorkerProcess | undefined> {
    const found = await until(
      'a live worker holding leased rows',
      async () => {
        const leases = await this.leasesByOwner(batchId);
        const holding = this.liveWorkers().filter((w) => !w.stopped && w.owner !== undefined && (leases.get(w.owner) ?? 0) > 0);
        if (holding.length > 0) return { worker: pick(holding) };
        return (await this.progress(batchId)).active === 0 ? { worker: undefined } : undefined;
      },
      { abort: () => this.noWorkerLeft(), diagnose: () => this.diagnose(batchId) },
    );
    return found.worker;
  }

  /**
   * Until no row is active and the batch is no longer RUNNING. Fails early when no
   * worker is left to do the work, when `abort` says so, or when nothing at all was
   * written for `stallMs` (the longest backoff here is far shorter).
   */
  async waitForBatchEnd(
    batchId: string,
    options: { limitMs?: number; stallMs?: number; abort?: () => string | undefined } = {},
  ): Promise<Progress> {
    const stallMs = options.stallMs ?? 120_000;
    let signature = '';
    let since = Date.now();
    let stalled: string | undefined;
    return until(
      `batch ${batchId} to finish`,
      async () => {
        const progress = await this.progress(batchId);
        if (progress.signature !== signature) {
          signature = progress.signature;
          since = Date.now();
        } else if (Date.now() - since > stallMs) {
          stalled = `nothing was written for ${Math.round(stallMs / 1000)} s`;
        }
        return progress.active === 0 && progress.batchStatus !== 'RUNNING' ? progress : undefined;
      },
      {
        limitMs: options.limitMs ?? 8 * 60_000,
        everyMs: 500,
        abort: () => options.abort?.() ?? this.noWorkerLeft() ?? stalled,
        diagnose: () => this.diagnose(batchId),
      },
    );
  }

  noWorkerLeft(): string | undefined {
    return this.liveWorkers().length === 0 ? 'no worker process is left running' : undefined;
  }

  async diagnose(batchId: string): Promise<string> {
    const progress = await this.progress(batchId).catch((error) => String(error));
    const workers = this.workers.map((w) => `  ${w.describe()}`).join('\n');
    const dead = this.workers
      .filter((w) => !w.alive && !w.killedByTest)
      .map((w) => `--- ${w.name} ---\n${w.crashReport()}`)
      .join('\n');
    return `progress: ${JSON.stringify(progress)}\nworkers:\n${workers}\n${dead}`;
  }

  async close(): Promise<void> {
    await Promise.all(this.gateways.map((gateway) => gateway.kill()));
    await killAllWorkers();
    await this.runtime.close().catch(() => {});
    await this.sb.close();
    await this.database.drop();
  }
}

/** What a fault scenario starts, each ended after its test whatever the outcome (useFaultScenario). */
export interface FaultScenario {
  /** The scenario's summary line, printed when the test ends. */
  summary(name: string): ScenarioSummary;
  /** The scenario's rig: its processes, sandbox and database. */
  start(options?: RigOptions): Promise<FaultRig>;
  /** A connection of the scenario's own to the rig's database (to end the others' backends). */
  admin(databaseUrl: string): Promise<pg.Client>;
  /** The rig started, for helpers beside the tests; undefined between tests. */
  readonly rig: FaultRig | undefined;
}

/**
 * The teardown every fault suite shares, registered once in its describeFaultSuite body:
 * after each test the summary is printed (passed or failed), the admin connection closed,
 * `beforeClose` run on the rig (a partner outage cleared), and the rig closed.
 */
export function useFaultScenario(options: { beforeClose?: (rig: FaultRig) => Promise<unknown> } = {}): FaultScenario {
  let rig: FaultRig | undefined;
  let admin: pg.Client | undefined;
  let summary: ScenarioSummary | undefined;
  afterEach(async () => {
    summary?.print();
    summary = undefined;
    await admin?.end().catch(() => {});
    admin = undefined;
    if (rig !== undefined) await options.beforeClose?.(rig);
    await rig?.close();
    rig = undefined;
  });
  return {
    summary: (name) => (summary = new ScenarioSummary(name)),
    start: async (rigOptions) => (rig = await FaultRig.start(rigOptions)),
    async admin(databaseUrl) {
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      return admin;
    },
    get rig() {
      return rig;
    },
  };
}

/**
 * The one line each scenario prints when it ends, passed or failed: rows, kills,
 * duplicates, NEEDS_REVIEW count and seconds, plus what the scenario adds.
 */
export class ScenarioSummary {
  private readonly started = Date.now();
  private readonly facts: Record<string, string | number> = { rows: '?', kills: 0, duplicates: '?', needsReview: '?' };

  constructor(private readonly name: string) {}

  set(facts: Record<string, string | number>): void {
    Object.assign(this.facts, facts);
  }

  reconciled(result: Reconciliation): void {
    const { createCalls, creates, executeCalls, executions } = result.upstream;
    this.set({
      rows: result.rows,
      duplicates: result.duplicates,
      needsReview: result.needsReview,
      violations: result.violations.length,
      statuses: JSON.stringify(result.byStatus),
      // Calls received / took effect: repeats and read-backs after faults show up as the gap.
      creates: `${createCalls}/${creates}`,
      executes: `${executeCalls}/${executions}`,
    });
  }

  print(): void {
    const facts = { ...this.facts, seconds: Math.round((Date.now() - this.started) / 1000) };
    console.log(
      `[fault suite] ${this.name}: ${Object.entries(facts)
        .map(([key, value]) => `${key}=${value}`)
        .join(' ')}`,
    );
  }
}

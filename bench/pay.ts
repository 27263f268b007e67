import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openRuntime, type Runtime } from '../src/app/runtime.ts';
import { loadGatewayConfig } from '../src/config/env.ts';
import { ensureDevKeyPair } from '../src/config/keys.ts';
import { createLogger } from '../src/log/logger.ts';
import { adminQuery } from './admin-query.ts';
import { startEventReceiverProcess, type EventReceiverProcess } from './event-receiver-process.ts';
import { report } from './report.ts';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.ts';

/**
 * The pay path against its bound: a batch paid by one worker through the production
 * composition (openRuntime), the sandbox in a process of its own so that each side's CPU
 * is measured apart. Every figure is printed beside its bound or target from the same run.
 *
 *   npm run bench:pay -- --rows 2000 --concurrency 32 [--latency 20] [--admin-url postgres://…] [--no-pglite] [--databases pglite] [--events]
 *
 * --events pays each configuration three times: without a subscription, then with one to
 * every event type sent one event per request, then with one taking lists of
 * --events-per-request (50). For each: the worker's CPU per row (its changes write the
 * outbox), then the CPU the same process's deliverer spends per event delivering the batch's
 * events to samples/event-receiver.mjs in its own process, and what both add to a row.
 */
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '32' },
    latency: { type: 'string', default: '20' },
    'admin-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'no-pglite': { type: 'boolean', default: false },
    /** The databases to pay on, in order (a profile of one: `--databases pglite`). */
    databases: { type: 'string', default: 'postgresql,pglite' },
    /** Each run twice, without and with one subscription to every event type (a real receiver in its own process). */
    events: { type: 'boolean', default: false },
    'events-per-request': { type: 'string', default: '50' },
  },
});
const rows = Number(values.rows);
const concurrency = Number(values.concurrency);
const latency = Number(values.latency);
const adminUrl = values['admin-url']!;
const dir = mkdtempSync(join(tmpdir(), 'payout-bench-pay-'));
const keys = ensureDevKeyPair(dir);
const credentials = { PAYOUT_AGENT_ID: 'bench', PAYOUT_API_TOKEN: 'bench-token', PAYOUT_WEBHOOK_SECRET: 'bench-secret' };

export interface PayFigure {
  database: 'postgresql' | 'pglite';
  latencyMs: number;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** concurrency / (2 × latency): each row is two upstream calls. */
  boundRowsPerSecond: number | null;
  workerCpuMsPerRow: number;
  /** Of which in the kernel (sockets): the rest is JavaScript, the pg driver and RSA signing. */
  workerSystemMsPerRow: number;
  sandboxCpuMsPerRow: number;
  statementsPerRow: number | null;
  paidTwice: number;
  /** The subscription's events per request (with --events), else null. */
  eventsPerRequest: number | null;
  /** Events delivered to the one subscription (with --events), else null. */
  eventsDelivered: number | null;
  /** The deliverer's CPU per event delivered, measured after the batch (with --events). */
  deliveryCpuMsPerEvent: number | null;
  /** With --events: the outbox's and delivery's CPU per row, in % of the run without a subscription. */
  addedPercent?: number;
}

async function main(): Promise<void> {
  const file = join(dir, 'payroll.csv');
  spawnSync(process.execPath, ['--import', 'tsx', 'samples/generate-payroll.ts', '--rows', String(rows), '--out', file], {
    stdio: 'inherit',
  });
  const sandbox = await startSandbox();
  const figures: PayFigure[] = [];
  try {
    const chosen = values.databases!.split(',').map((name) => name.trim()) as Array<'postgresql' | 'pglite'>;
    const kinds = values['no-pglite'] ? chosen.filter((kind) => kind !== 'pglite') : chosen;
    for (const database of kinds) {
      for (const latencyMs of latency === 0 || values.events ? [latency] : [latency, 0]) {
        // Runs in one process get faster as the JIT warms: with --events one run first, not
        // reported, so the run without a subscription is not the slowest for that alone.
        if (values.events) await payOnce(database, latencyMs, file, sandbox, null);
        const figure = await payOnce(database, latencyMs, file, sandbox, null);
        reportFigure(figure);
        figures.push(figure);
        if (values.events) {
          for (const perRequest of [1, Number(values['events-per-request'])]) {
            const withEvents = await payOnce(database, latencyMs, file, sandbox, perRequest);
            reportEvents(figure, withEvents);
            figures.push(withEvents);
          }
        }
      }
    }
  } finally {
    sandbox.process.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
  console.log(`\npay path, ${rows} rows, concurrency ${concurrency} (load average ${load}):`);
  for (const f of figures) console.log(describe(f));
}

function reportFigure(f: PayFigure): void {
  const detail = `${f.database === 'postgresql' ? 'PostgreSQL' : 'PGlite'}, upstream latency ${f.latencyMs} ms, ${f.rows} rows, concurrency ${concurrency}`;
  const percent = f.boundRowsPerSecond === null ? undefined : (100 * f.rowsPerSecond) / f.boundRowsPerSecond;
  report({
    bench: 'pay',
    name: 'rows paid per second',
    value: Math.round(f.rowsPerSecond),
    unit: 'rows/s',
    // The target is PostgreSQL's: PGlite runs the database inside the worker's process.
    target:
      percent === undefined
        ? '—'
        : `${f.database === 'pglite' ? 'context: ' : ''}≥ 85 % of the bound ${f.boundRowsPerSecond} (got ${Math.round(percent)} %)`,
    ...(percent === undefined || f.database === 'pglite' ? {} : { met: percent >= 85 }),
    detail,
  });
  report({
    bench: 'pay',
    name: f.database === 'pglite' ? 'worker CPU per row, database included' : 'worker CPU per row',
    value: Number(f.workerCpuMsPerRow.toFixed(2)),
    unit: 'ms',
    target: f.database === 'pglite' ? '—' : '≤ 1.5',
    ...(f.database === 'pglite' ? {} : { met: f.workerCpuMsPerRow <= 1.5 }),
    detail: `${detail}; sandbox ${f.sandboxCpuMsPerRow.toFixed(2)} ms/row`,
  });
  if (f.statementsPerRow !== null) {
    report({
      bench: 'pay',
      name: 'SQL statements per row',
      value: Number(f.statementsPerRow.toFixed(2)),
      unit: '',
      target: '≤ 3',
      met: f.statementsPerRow <= 3,
      detail,
    });
  }
  report({ bench: 'pay', name: 'rows paid twice', value: f.paidTwice, unit: '', target: '0', met: f.paidTwice === 0, detail });
}

function reportEvents(without: PayFigure, withEvents: PayFigure): void {
  const outbox = withEvents.workerCpuMsPerRow - without.workerCpuMsPerRow;
  const delivery = ((withEvents.deliveryCpuMsPerEvent ?? 0) * (withEvents.eventsDelivered ?? 0)) / withEvents.rows;
  // The outbox's share is within the runs' noise (it has measured below zero): counted only when above it.
  const added = (100 * (Math.max(outbox, 0) + delivery)) / without.workerCpuMsPerRow;
  withEvents.addedPercent = added;
  const sending =
    withEvents.eventsPerRequest === 1 ? 'one event per request' : `lists of ${withEvents.eventsPerRequest} events per request`;
  report({
    bench: 'pay',
    name: `worker CPU per row added by events, ${sending}`,
    value: Number(added.toFixed(1)),
    unit: '%',
    target: '≤ 10 %',
    met: added <= 10,
    detail:
      `${withEvents.database}, latency ${withEvents.latencyMs} ms: ${without.workerCpuMsPerRow.toFixed(2)} ms/row without a subscription; ` +
      `outbox ${outbox >= 0 ? '+' : ''}${outbox.toFixed(3)} ms/row, delivery ${delivery.toFixed(3)} ms/row ` +
      `(${withEvents.eventsDelivered} events, ${(withEvents.deliveryCpuMsPerEvent ?? 0).toFixed(3)} ms each, signed, to a receiver verifying each)`,
  });
}

function describe(f: PayFigure): string {
  const bound =
    f.boundRowsPerSecond === null
      ? ''
      : ` = ${Math.round((100 * f.rowsPerSecond) / f.boundRowsPerSecond)} % of the bound ${f.boundRowsPerSecond} (target ≥ 85 %)`;
  const statements =
    f.statementsPerRow === null ? 'statements n/a (PGlite)' : `${f.statementsPerRow.toFixed(2)} SQL statements/row (target ≤ 3)`;
  return (
    `  ${f.database.padEnd(10)} latency ${String(f.latencyMs).padStart(2)} ms: ${f.rowsPerSecond.toFixed(0)} rows/s${bound}; ` +
    `worker CPU ${f.workerCpuMsPerRow.toFixed(2)} ms/row (${f.workerSystemMsPerRow.toFixed(2)} in the kernel; target ≤ 1.5${f.database === 'pglite' ? ', database included' : ''}), ` +
    `sandbox CPU ${f.sandboxCpuMsPerRow.toFixed(2)} ms/row; ${statements}; paid twice: ${f.paidTwice}` +
    (f.eventsDelivered === null
      ? ''
      : `; with one subscription to every event, ${f.eventsPerRequest} per request: ${f.eventsDelivered} delivered after, ` +
        `${f.deliveryCpuMsPerEvent?.toFixed(3)} ms of CPU per event; events add ${f.addedPercent?.toFixed(1)} % to a row's worker CPU (target ≤ 10 %)`)
  );
}

async function payOnce(
  database: 'postgresql' | 'pglite',
  latencyMs: number,
  file: string,
  sandbox: PaySandbox,
  eventsPerRequest: number | null,
): Promise<PayFigure> {
  const events = eventsPerRequest !== null;
  await sandbox.setLatency(latencyMs);
  const dbName = `payout_bench_${process.pid}_${database}_${latencyMs}${events ? `_events${eventsPerRequest}` : ''}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  if (database === 'postgresql') await adminQuery(adminUrl, `CREATE DATABASE "${dbName}"`);
  const config = loadGatewayConfig({
    ...credentials,
    PAYOUT_API_URL: sandbox.url,
    PAYOUT_PRIVATE_KEY_FILE: keys.privateKeyFile,
    // A real upstream needs a configured card data key; any 32 bytes do for a benchmark.
    PAYOUT_DATA_KEY: randomBytes(32).toString('base64'),
    GATEWAY_API_KEYS: `${randomBytes(32).toString('hex')}:admin`,
    WORKER_IN_PROCESS: 'false',
    WORKER_CONCURRENCY: String(concurrency),
    WORKER_BATCH_CONCURRENCY: String(concurrency),
    BATCH_MAX_ROWS: String(rows),
    ...(database === 'postgresql'
      ? { DATABASE_URL: dbUrl.toString() }
      : { DATA_DIR: join(dir, `pglite-${latencyMs}${events ? `-events${eventsPerRequest}` : ''}`) }),
    EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true',
    EVENT_POLL_MS: '100',
  });
  let runtime: Runtime | undefined = await openRuntime(config, createLogger({ level: 'silent' }));
  let receiver: EventReceiverProcess | undefined;
  try {
    const { importer, batches } = runtime.services;
    if (events) {
      const created = await runtime.services.eventSubscriptions.create(
        { url: 'http://127.0.0.1:1/', eventsPerRequest },
        { actor: 'bench', role: 'admin', requestId: null },
      );
      receiver = await startEventReceiverProcess(created.secret, join(dir, `received-${dbName}.txt`));
      await runtime.services.eventSubscriptions.update(
        created.subscription.id,
        { url: receiver.url },
        { actor: 'bench', role: 'admin', requestId: null },
      );
    }
    const batch = await importer.import({ source: createReadStream(file), force: true });
    if (batch.status !== 'VALIDATED') throw new Error(`the bench file did not validate: ${batch.status}`);
    await batches.approve(batch.id, { approver: 'bench' });
    const statementsBefore = database === 'postgresql' ? await commits(dbName) : 0;
    const sandboxBefore = sandbox.cpuMs();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await runtime.worker.drain(async () => (await batches.get(batch.id)).status !== 'RUNNING', batch.id);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    // With a subscription the pay path above wrote every event into the outbox; delivering
    // them is measured apart, by the same process's deliverer, until the receiver has them all.
    let deliveryCpuMsPerEvent: number | null = null;
    if (receiver !== undefined) {
      // Waited for by reading the subscription's row every 100 ms, not the receiver's output:
      // parsing a line per event here would be counted as delivery.
      const expected = rows + 3;
      const deliveryBefore = process.cpuUsage();
      runtime.deliverer.start();
      const { query } = runtime.db;
      while (
        Number((await query<{ sent: string }>(`SELECT ("nextSequence" - 1)::text AS sent FROM "EventSubscription"`, []))[0]?.sent ?? 0) <
        expected
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const delivery = process.cpuUsage(deliveryBefore);
      await receiver.waitFor(expected);
      deliveryCpuMsPerEvent = (delivery.user + delivery.system) / 1000 / expected;
    }
    const sandboxCpu = sandbox.cpuMs() - sandboxBefore;
    const final = await batches.get(batch.id);
    if (final.status !== 'COMPLETED') throw new Error(`the bench batch ended ${final.status}`);
    await runtime.close();
    runtime = undefined;
    // Backends flush their statistics as they exit; the pool has just been closed.
    const statementsPerRow = database === 'postgresql' ? ((await commits(dbName, true)) - statementsBefore) / rows : null;
    const effects = (await sandbox.effects()).filter((e) => e.paymentId.startsWith(batch.id));
    return {
      database,
      latencyMs,
      rows,
      seconds,
      rowsPerSecond: rows / seconds,
      boundRowsPerSecond: latencyMs === 0 ? null : Math.round(concurrency / (2 * (latencyMs / 1000))),
      workerCpuMsPerRow: (cpu.user + cpu.system) / 1000 / rows,
      workerSystemMsPerRow: cpu.system / 1000 / rows,
      sandboxCpuMsPerRow: sandboxCpu / rows,
      statementsPerRow,
      paidTwice: effects.filter((e) => e.creates > 1 || e.executions > 1).length,
      eventsPerRequest,
      eventsDelivered: receiver === undefined ? null : receiver.count(),
      deliveryCpuMsPerEvent,
    };
  } finally {
    receiver?.close();
    await runtime?.close();
    if (database === 'postgresql') await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

/** Transactions committed in the database: outside a transaction, one per statement. */
async function commits(dbName: string, afterExit = false): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    if (afterExit) {
      for (let i = 0; i < 200; i++) {
        const { rows: active } = await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [dbName]);
        if (active[0].n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const { rows: stats } = await client.query('SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = $1', [dbName]);
    return Number(stats[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

interface PaySandbox extends SandboxProcess {
  cpuMs(): number;
  setLatency(ms: number): Promise<void>;
  effects(): Promise<Array<{ paymentId: string; creates: number; executions: number }>>;
}

/** `npm run sandbox` in a child process, on a free port, with its fault and effect routes at hand. */
async function startSandbox(): Promise<PaySandbox> {
  const sandbox = await startSandboxProcess({
    ...credentials,
    PAYOUT_PUBLIC_KEY_FILE: keys.publicKeyFile,
    // A fresh ledger each run: the sandbox keeps its state on disk otherwise.
    SANDBOX_DATA_DIR: join(dir, 'sandbox'),
    SANDBOX_BALANCE: '999999999999.00',
    SANDBOX_IN_PROGRESS_MS: '100',
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${credentials.PAYOUT_API_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`sandbox ${method} ${path}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? undefined : response.json();
  };
  return {
    ...sandbox,
    cpuMs: () => sandbox.cpuUs() / 1000,
    async setLatency(ms) {
      await call('PATCH', '/_sandbox/faults/rates', { latencyMs: ms });
    },
    async effects() {
      return ((await call('GET', '/_sandbox/payments')) as { payments: Array<{ paymentId: string; creates: number; executions: number }> })
        .payments;
    },
  };
}

await main();

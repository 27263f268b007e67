import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openRuntime } from '../src/app/runtime.ts';
import { loadGatewayConfig } from '../src/config/env.ts';
import { ensureDevKeyPair } from '../src/config/keys.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { createLogger } from '../src/log/logger.ts';
import { maskRecipientFields } from '../src/log/mask.ts';
import { systemActor } from '../src/audit/audit.ts';
import { PayoutClient } from '../src/payout/client.ts';
import type { Payment } from '../src/payout/models.ts';
import { zonedDate } from '../src/reconciliation/period.ts';
import { adminQuery } from './admin-query.ts';
import { report } from './report.ts';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.ts';

/**
 * A day of N payments on each side reconciled against the sandbox in a process of its
 * own, beside the raw cost of reading the same upstream list with the client alone, in
 * one run. A few discrepancies of every kind are planted, and the run must find exactly
 * those. Peak RSS is the reconciling process's own (getrusage), at two sizes, to show
 * memory does not grow with the period.
 *
 *   npm run bench:reconcile -- [--payments 100000] [--small 10000] [--admin-url postgres://…] [--no-pglite]
 */
const { values } = parseArgs({
  options: {
    payments: { type: 'string', default: '100000' },
    small: { type: 'string', default: '10000' },
    'admin-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'no-pglite': { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});
const credentials = { PAYOUT_AGENT_ID: 'bench', PAYOUT_API_TOKEN: 'bench-token', PAYOUT_WEBHOOK_SECRET: 'bench-secret' };
/** Planted per kind; the run must report exactly these. */
const PLANTED = 10;

interface ChildResult {
  seconds: number;
  cpuMs: number;
  peakRssMb: number;
  upstreamRequests: number;
  upstreamCount: number;
  gatewayCount: number;
  countsByCode: Record<string, number>;
  status: string;
}

interface Figure extends ChildResult {
  database: 'postgresql' | 'pglite';
  payments: number;
  listSeconds: number;
  listRequests: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-reconcile-'));
  const keys = ensureDevKeyPair(dir);
  const figures: Figure[] = [];
  const sizes = [Number(values.small), Number(values.payments)];
  try {
    const kinds: Array<'postgresql' | 'pglite'> = values['no-pglite'] ? ['postgresql'] : ['postgresql', 'pglite'];
    for (const payments of sizes) {
      // A sandbox per size: the day holds exactly this many payments.
      const sandbox = await startSandboxProcess({
        ...credentials,
        PAYOUT_PUBLIC_KEY_FILE: keys.publicKeyFile,
        SANDBOX_DATA_DIR: join(dir, `sandbox-${payments}`),
        SANDBOX_BALANCE: '999999999999.00',
      });
      try {
        const client = new PayoutClient({
          baseUrl: sandbox.url,
          agentId: credentials.PAYOUT_AGENT_ID,
          apiToken: credentials.PAYOUT_API_TOKEN,
          privateKeyPem: readFileSync(keys.privateKeyFile, 'utf8'),
          connectTimeoutMs: 5_000,
          headersTimeoutMs: 60_000,
          bodyTimeoutMs: 60_000,
          maxRetries: 2,
        });
        await plantUpstream(sandbox, payments);
        const list = await readList(client);
        for (const database of payments === sizes[0] ? ['postgresql' as const] : kinds) {
          const figure = await reconcileOnce(database, payments, sandbox, client, keys.privateKeyFile, dir);
          figures.push({ ...figure, listSeconds: list.seconds, listRequests: list.requests });
          reportFigure(figures.at(-1)!, figures);
        }
        await client.close();
      } finally {
        sandbox.process.kill('SIGTERM');
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
  console.log(`\nreconciliation, one day (load average ${load}):`);
  for (const f of figures) console.log(describe(f));
}

/** N payments behind the gateway's back in one call, then the planted upstream-side differences. */
async function plantUpstream(sandbox: SandboxProcess, payments: number): Promise<void> {
  await call(sandbox, 'POST', '/_sandbox/payments', { count: payments, idPrefix: 'rc-', amount: '100.00' });
}

/** The reference: the same list read with the client alone, a day, pages of 100, no database. */
async function readList(client: PayoutClient): Promise<{ seconds: number; requests: number; count: number }> {
  const day = zonedDate(new Date(), 'UTC');
  const started = performance.now();
  let requests = 0;
  let count = 0;
  for (let offset = 0; ; offset += 100) {
    requests++;
    const page = await client.listPayments({ from: day, to: day, limit: 100, offset });
    count += page.length;
    if (page.length < 100) break;
  }
  return { seconds: (performance.now() - started) / 1000, requests, count };
}

async function reconcileOnce(
  database: 'postgresql' | 'pglite',
  payments: number,
  sandbox: SandboxProcess,
  client: PayoutClient,
  privateKeyFile: string,
  dir: string,
): Promise<Omit<Figure, 'listSeconds' | 'listRequests'>> {
  const adminUrl = values['admin-url']!;
  const dbName = `payout_bench_reconcile_${process.pid}_${payments}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const dataDir = join(dir, `pglite-${payments}`);
  if (database === 'postgresql') await adminQuery(adminUrl, `CREATE DATABASE "${dbName}"`);
  const env = {
    ...credentials,
    PAYOUT_API_URL: sandbox.url,
    PAYOUT_PRIVATE_KEY_FILE: privateKeyFile,
    PAYOUT_DATA_KEY: randomBytes(32).toString('base64'),
    GATEWAY_API_KEYS: `${randomBytes(32).toString('hex')}:admin`,
    WORKER_IN_PROCESS: 'false',
    LOG_LEVEL: 'silent',
    ...(database === 'postgresql' ? { DATABASE_URL: dbUrl.toString() } : { DATA_DIR: dataDir }),
  };
  try {
    const db = await openDatabase(database === 'postgresql' ? { databaseUrl: dbUrl.toString() } : { dataDir });
    try {
      await db.migrate();
      await seedGateway(db, client);
    } finally {
      await db.close();
    }
    return { database, payments, ...(await runChild(env)) };
  } finally {
    if (database === 'postgresql') await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

/**
 * The gateway's records of the upstream's payments, as if it had made them, minus the
 * planted differences: some unknown to it, some it holds differently, some only it has.
 */
async function seedGateway(db: Database, client: PayoutClient): Promise<void> {
  const day = zonedDate(new Date(), 'UTC');
  const rows: Payment[] = [];
  const flush = async () => {
    await db.query(
      `INSERT INTO "Payment" ("paymentId", "agentId", amount, currency, commission, "providerCode", recipient, status,
         "upstreamCreatedAt", "statusChangedAt", "createdAt", "updatedAt")
       SELECT t.id, 'bench', t.amount, 'RUB', t.commission, t.provider, t.recipient::jsonb, t.status::"TrackedStatus",
         t.created::timestamptz, t.created::timestamptz, t.created::timestamptz, now()
       FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS t(id, amount, commission, provider, recipient, status, created)`,
      [
        rows.map((p) => p.paymentId),
        rows.map((p) => p.amount.value),
        rows.map((p) => p.commission.value),
        rows.map((p) => p.recipientDetails.providerCode),
        rows.map((p) => JSON.stringify(maskRecipientFields(p.recipientDetails.fields))),
        rows.map((p) => p.status.value),
        rows.map((p) => p.creationDateTime),
      ],
    );
    rows.length = 0;
  };
  let index = 0;
  for (let offset = 0; ; offset += 100) {
    const page = await client.listPayments({ from: day, to: day, limit: 100, offset });
    for (const payment of page) {
      index++;
      // Planted: the first PLANTED are unknown to the gateway, the next differ in status, then in commission.
      if (index <= PLANTED) continue;
      if (index <= 2 * PLANTED) payment.status = { ...payment.status, value: 'IN_PROGRESS' };
      else if (index <= 3 * PLANTED) payment.commission = { ...payment.commission, value: '0.01' };
      rows.push(payment);
    }
    if (rows.length >= 5_000) await flush();
    if (page.length < 100) break;
  }
  for (let i = 1; i <= PLANTED; i++) {
    const now = new Date().toISOString();
    rows.push({
      paymentId: `rc-gateway-only-${i}`,
      creationDateTime: now,
      expirationDateTime: now,
      status: { value: 'COMPLETED', changedDateTime: now },
      amount: { value: '100.00', currency: 'RUB' },
      commission: { value: '1.00', currency: 'RUB' },
      recipientDetails: { providerCode: 'sbp-b2c', fields: { account: '79001234567', bankId: 'sbp_bank_id_success' } },
    });
  }
  await flush();
}

function runChild(env: Record<string, string>): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROF_DIR=dir: the reconciling process writes a CPU profile there (node --cpu-prof).
    const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF_DIR] : [];
    const childProcess = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/reconcile.ts', '--child', JSON.stringify(env)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    childProcess.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    childProcess.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`the reconciling process exited with ${code}: ${out}`));
      resolve(JSON.parse(line) as ChildResult);
    });
  });
}

/** The reconciling process: the production composition, one run of today, its own CPU and peak RSS. */
async function child(env: Record<string, string>): Promise<void> {
  const config = loadGatewayConfig(env);
  const runtime = await openRuntime(config, createLogger({ level: 'silent' }));
  try {
    const day = zonedDate(new Date(), config.reconciliation.timeZone);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const run = await runtime.services.reconciliations.run({ from: day, to: day, trigger: 'cli', actor: systemActor });
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const result: ChildResult = {
      seconds,
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      upstreamRequests: run.upstreamRequests,
      upstreamCount: run.upstreamCount,
      gatewayCount: run.gatewayCount,
      countsByCode: (run.countsByCode ?? {}) as Record<string, number>,
      status: run.status,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await runtime.close();
  }
}

const expected = { UNKNOWN_TO_GATEWAY: PLANTED, STATUS_DIFFERS: PLANTED, COMMISSION_DIFFERS: PLANTED, MISSING_UPSTREAM: PLANTED };

function found(f: Figure): boolean {
  const codes = Object.keys({ ...expected, ...f.countsByCode });
  return f.status === 'COMPLETED' && codes.every((code) => f.countsByCode[code] === expected[code as keyof typeof expected]);
}

function reportFigure(f: Figure, all: Figure[]): void {
  const db = f.database === 'postgresql' ? 'PostgreSQL' : 'PGlite';
  const detail = `${db}, ${f.payments.toLocaleString('en')} payments a side, one day, pages of 100`;
  const big = f.payments === Number(values.payments);
  const perThousand = (n: number) => (1000 * n) / f.payments;
  if (big) {
    report({
      bench: 'reconcile',
      name: 'reconcile a day, wall time',
      value: Number(f.seconds.toFixed(1)),
      unit: 's',
      target: f.database === 'postgresql' ? '< 60' : 'context',
      ...(f.database === 'postgresql' ? { met: f.seconds < 60 } : {}),
      detail: `${detail}; reading the list alone took ${f.listSeconds.toFixed(1)} s (${(f.seconds / f.listSeconds).toFixed(1)}×)`,
    });
    report({
      bench: 'reconcile',
      name: 'payments compared per second',
      value: Math.round(f.payments / f.seconds),
      unit: '/s',
      target: '—',
      detail,
    });
    report({
      bench: 'reconcile',
      name: 'upstream requests per 1,000 payments',
      value: Number(perThousand(f.upstreamRequests).toFixed(1)),
      unit: '',
      target: '—',
      detail: `${detail}; the list alone: ${perThousand(f.listRequests).toFixed(1)}`,
    });
    report({
      bench: 'reconcile',
      name: 'CPU per 1,000 payments',
      value: Math.round(perThousand(f.cpuMs)),
      unit: 'ms',
      target: '—',
      detail: `${detail}; reconciling process only (database separate on PostgreSQL)`,
    });
  }
  const small = all.find((other) => other.payments !== f.payments && other.database === f.database);
  report({
    bench: 'reconcile',
    name: 'peak RSS of the reconciling process',
    value: Math.round(f.peakRssMb),
    unit: 'MB',
    target: big && small !== undefined ? `bounded (${Math.round(small.peakRssMb)} MB at ${small.payments.toLocaleString('en')})` : '—',
    ...(big && small !== undefined ? { met: f.peakRssMb < small.peakRssMb * 1.5 } : {}),
    detail,
  });
  report({
    bench: 'reconcile',
    name: 'planted discrepancies found exactly',
    value: found(f) ? 1 : 0,
    unit: '',
    target: '1',
    met: found(f),
    detail: `${detail}; ${JSON.stringify(f.countsByCode)}`,
  });
}

function describe(f: Figure): string {
  return (
    `  ${f.database.padEnd(10)} ${String(f.payments).padStart(7)} a side: ${f.seconds.toFixed(1)} s (list alone ${f.listSeconds.toFixed(1)} s), ` +
    `${Math.round(f.payments / f.seconds)} payments/s, ${((1000 * f.upstreamRequests) / f.payments).toFixed(1)} requests per 1,000 (list alone ${((1000 * f.listRequests) / f.payments).toFixed(1)}), ` +
    `CPU ${((1000 * f.cpuMs) / f.payments).toFixed(0)} ms per 1,000, peak RSS ${Math.round(f.peakRssMb)} MB; found ${JSON.stringify(f.countsByCode)} ${found(f) ? '(exactly the planted ones)' : '(NOT the planted ones)'}`
  );
}

async function call(sandbox: SandboxProcess, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${credentials.PAYOUT_API_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sandbox ${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

if (values.child !== undefined) {
  await child(JSON.parse(values.child) as Record<string, string>);
} else {
  await main();
}

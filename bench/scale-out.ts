import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openRuntime, type Runtime } from '../src/app/runtime.ts';
import { loadGatewayConfig } from '../src/config/env.ts';
import { ensureDevKeyPair } from '../src/config/keys.ts';
import { createLogger } from '../src/log/logger.ts';
import { adminQuery } from './admin-query.ts';
import { benchCredentials as credentials } from './gateway-process.ts';
import { report } from './report.ts';
import { startSandboxProcess } from './sandbox-process.ts';

/**
 * Scale-out (issue 41): worker processes added on one PostgreSQL under one partner budget.
 *
 * 1. The sandbox answers after 200 ms and limits calls to the budget (SANDBOX_CALLS_PER_SECOND);
 *    1, 2 and 4 worker processes (`npm run worker`'s entry, each WORKER_CONCURRENCY 8) pay a
 *    batch with PARTNER_CALLS_PER_SECOND at that budget. Rows per second should grow close to
 *    linearly (≥ 0.8×) until the budget, then hold it (calls at the partner ≥ 95 % of it), with
 *    no 429.
 * 2. A throttled partner: limit 50 calls a second, 4 workers, the budget set to it: no row
 *    ends NEEDS_REVIEW or FAILED, and the limit is used at ≥ 90 %. The same without a budget
 *    (the partner's 429s alone hold the workers) is printed beside it as context.
 *
 *   npm run bench:scale -- [--budget 120] [--seconds 15] [--admin-url postgres://…]
 */
const { values } = parseArgs({
  options: {
    budget: { type: 'string', default: '120' },
    seconds: { type: 'string', default: '15' },
    /** Only the throttled partner's two runs. */
    'throttled-only': { type: 'boolean', default: false },
    'admin-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const budget = Number(values.budget);
const seconds = Number(values.seconds);
const adminUrl = values['admin-url']!;
const LATENCY_MS = 200;
const CONCURRENCY = 8;
const THROTTLE = 50;
const dir = mkdtempSync(join(tmpdir(), 'payout-bench-scale-'));
const keys = ensureDevKeyPair(dir);
const dataKey = randomBytes(32).toString('base64');

interface Run {
  workers: number;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  callsPerSecond: number;
  /** Calls a second at the partner in the middle half of the run: the steady state, without the start and the last read-backs. */
  steadyCallsPerSecond: number;
  throttled: number;
  failed: number;
}

async function main(): Promise<void> {
  console.log(`load ${loadavg()[0]!.toFixed(2)}; sandbox latency ${LATENCY_MS} ms; ${CONCURRENCY} rows in flight per worker`);
  if (!values['throttled-only']) await scaleOut();
  await throttled();
}

async function scaleOut(): Promise<void> {
  const runs: Run[] = [];
  // One worker's rate (2 calls a row, each 200 ms) sets how many rows make a run of about `seconds`.
  const perWorkerRows = (CONCURRENCY / (2 * (LATENCY_MS / 1000))) * seconds;
  const budgetRows = (budget / 2) * seconds;
  for (const workers of [1, 2, 4]) {
    const rows = Math.round(Math.min(perWorkerRows * workers, budgetRows * 1.2));
    runs.push(await payWith({ workers, rows, partnerLimit: budget, budget }));
  }
  const [one, two, four] = runs as [Run, Run, Run];
  const linear2 = two.rowsPerSecond / (2 * one.rowsPerSecond);
  const held = four.steadyCallsPerSecond / budget;
  for (const run of runs) console.log(line(run, budget));
  console.log(
    `2 workers ÷ (2 × 1 worker): ${linear2.toFixed(2)}×; 4 workers' calls in the middle half of the run ÷ the budget: ${(held * 100).toFixed(0)} %`,
  );
  const detail = `PostgreSQL, sandbox latency ${LATENCY_MS} ms and limit ${budget} calls/s, PARTNER_CALLS_PER_SECOND ${budget}, WORKER_CONCURRENCY ${CONCURRENCY}`;
  report({
    bench: 'scale',
    name: '2 workers ÷ 2 × 1 worker, rows per second',
    value: round(linear2),
    unit: '×',
    target: '≥ 0.8',
    met: linear2 >= 0.8,
    detail: `${detail}; ${one.rowsPerSecond.toFixed(1)} and ${two.rowsPerSecond.toFixed(1)} rows/s`,
  });
  report({
    bench: 'scale',
    name: '4 workers: calls at the partner ÷ the budget, middle half of the run',
    value: Math.round(held * 100),
    unit: '%',
    target: '≥ 95',
    met: held >= 0.95 && held <= 1.05,
    detail: `${detail}; ${four.rowsPerSecond.toFixed(1)} rows/s`,
  });
  const throttledAll = runs.reduce((n, r) => n + r.throttled, 0);
  report({
    bench: 'scale',
    name: 'answers of 429 over the three runs',
    value: throttledAll,
    unit: '',
    target: '0',
    met: throttledAll === 0,
    detail,
  });
}

async function throttled(): Promise<void> {
  const budgeted = await payWith({ workers: 4, rows: Math.round((THROTTLE / 2) * seconds), partnerLimit: THROTTLE, budget: THROTTLE });
  const unbudgeted = await payWith({ workers: 4, rows: Math.round((THROTTLE / 2) * seconds), partnerLimit: THROTTLE, budget: 0 });
  console.log(`throttled partner (${THROTTLE} calls/s), 4 workers:`);
  console.log(`  with PARTNER_CALLS_PER_SECOND ${THROTTLE}: ${line(budgeted, THROTTLE)}`);
  console.log(`  without a budget:              ${line(unbudgeted, THROTTLE)}`);
  const throttledDetail = `PostgreSQL, sandbox latency ${LATENCY_MS} ms and limit ${THROTTLE} calls/s, 4 workers`;
  report({
    bench: 'scale',
    name: 'throttled partner: rows NEEDS_REVIEW or FAILED',
    value: budgeted.failed + unbudgeted.failed,
    unit: 'rows',
    target: '0',
    met: budgeted.failed + unbudgeted.failed === 0,
    detail: `${throttledDetail}, with and without PARTNER_CALLS_PER_SECOND`,
  });
  const used = budgeted.callsPerSecond / THROTTLE;
  report({
    bench: 'scale',
    name: 'throttled partner: its limit used',
    value: Math.round(used * 100),
    unit: '%',
    target: '≥ 90',
    met: used >= 0.9,
    detail: `${throttledDetail}, PARTNER_CALLS_PER_SECOND ${THROTTLE}; ${budgeted.throttled} answers of 429`,
  });
  report({
    bench: 'scale',
    name: 'throttled partner without a budget: its limit used',
    value: Math.round((unbudgeted.callsPerSecond / THROTTLE) * 100),
    unit: '%',
    target: '—',
    detail: `${throttledDetail}, no PARTNER_CALLS_PER_SECOND (context); ${unbudgeted.throttled} answers of 429, each holding every worker for its Retry-After`,
  });
}

function line(run: Run, limit: number): string {
  return `${run.workers} worker(s): ${run.rows} rows in ${run.seconds.toFixed(1)} s = ${run.rowsPerSecond.toFixed(1)} rows/s; ${run.callsPerSecond.toFixed(1)} calls/s at the partner (${((run.callsPerSecond / limit) * 100).toFixed(0)} % of ${limit}), ${run.steadyCallsPerSecond.toFixed(1)} in the middle half (${((run.steadyCallsPerSecond / limit) * 100).toFixed(0)} %); ${run.throttled} × 429; ${run.failed} rows NEEDS_REVIEW or FAILED`;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** One batch of `rows` paid by `workers` worker processes; the sandbox's own counts say what reached it. */
async function payWith(o: { workers: number; rows: number; partnerLimit: number; budget: number }): Promise<Run> {
  const sandbox = await startSandboxProcess({
    ...credentials,
    PAYOUT_PUBLIC_KEY_FILE: keys.publicKeyFile,
    SANDBOX_DATA_DIR: join(dir, `sandbox-${o.workers}-${o.budget}-${o.partnerLimit}`),
    SANDBOX_BALANCE: '999999999999.00',
    SANDBOX_IN_PROGRESS_MS: '100',
    SANDBOX_LATENCY_MS: String(LATENCY_MS),
    SANDBOX_CALLS_PER_SECOND: String(o.partnerLimit),
  });
  const dbName = `payout_bench_scale_${process.pid}_${o.workers}_${o.budget}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  await adminQuery(adminUrl, `CREATE DATABASE "${dbName}"`);
  const env = {
    ...credentials,
    PAYOUT_API_URL: sandbox.url,
    PAYOUT_PRIVATE_KEY_FILE: keys.privateKeyFile,
    PAYOUT_DATA_KEY: dataKey,
    GATEWAY_API_KEYS: `${randomBytes(32).toString('hex')}:admin`,
    DATABASE_URL: dbUrl.toString(),
    WORKER_IN_PROCESS: 'false',
    WORKER_CONCURRENCY: String(CONCURRENCY),
    WORKER_BATCH_CONCURRENCY: String(CONCURRENCY),
    PARTNER_CALLS_PER_SECOND: String(o.budget),
    BATCH_MAX_ROWS: String(Math.max(1000, o.rows)),
    LOG_LEVEL: 'warn',
  };
  let runtime: Runtime | undefined;
  const children: ChildProcess[] = [];
  try {
    // The gateway's side (import, approval) in this process; its worker is not started.
    runtime = await openRuntime(loadGatewayConfig(env), createLogger({ level: 'silent' }));
    for (let i = 0; i < o.workers; i++) children.push(await startWorker(env));
    const file = join(dir, `rows-${o.rows}.csv`);
    const lines = Array.from(
      { length: o.rows },
      (_, i) => `bank-card-token,${100 + (i % 900)}.${String(i % 100).padStart(2, '0')},token_success`,
    );
    writeFileSync(file, `provider,amount,account\n${lines.join('\n')}\n`);
    const { importer, batches } = runtime.services;
    const { createReadStream } = await import('node:fs');
    const batch = await importer.import({ source: createReadStream(file), force: true });
    if (batch.status !== 'VALIDATED') throw new Error(`the bench file did not validate: ${batch.status}`);
    await sandboxCall(sandbox.url, 'DELETE', '/_sandbox/calls');
    const started = performance.now();
    const startedAt = Date.now();
    await batches.approve(batch.id, { approver: 'bench' });
    while ((await batches.get(batch.id)).status === 'RUNNING') await new Promise((resolve) => setTimeout(resolve, 50));
    const took = (performance.now() - started) / 1000;
    const from = new Date(startedAt + took * 250).toISOString();
    const to = new Date(startedAt + took * 750).toISOString();
    const calls = (await sandboxCall(sandbox.url, 'GET', `/_sandbox/calls?from=${from}&to=${to}`)) as {
      total: number;
      rateLimit: { throttled: number };
      between: { total: number };
    };
    const failed = await runtime.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "BatchItem" WHERE "batchId" = $1 AND status::text IN ('NEEDS_REVIEW', 'FAILED')`,
      [batch.id],
    );
    const final = await batches.get(batch.id);
    if (final.status !== 'COMPLETED' && (failed[0]?.n ?? 0) === 0) throw new Error(`the bench batch ended ${final.status}`);
    return {
      workers: o.workers,
      rows: o.rows,
      seconds: took,
      rowsPerSecond: o.rows / took,
      callsPerSecond: (calls.total - calls.rateLimit.throttled) / took,
      steadyCallsPerSecond: calls.between.total / (took / 2),
      throttled: calls.rateLimit.throttled,
      failed: failed[0]?.n ?? 0,
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))),
    );
    await runtime?.close();
    sandbox.process.kill('SIGTERM');
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

/** `npm run worker`'s entry in a process of its own, once it says it runs. */
async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker-main.ts'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.includes('batch worker running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`a worker exited with ${code}`)));
  });
  child.stdout!.removeAllListeners('data');
  child.stdout!.resume();
  return child;
}

async function sandboxCall(url: string, method: string, path: string): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${credentials.PAYOUT_API_TOKEN}` } });
  if (!response.ok) throw new Error(`sandbox ${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { report } from './report.ts';
import { listeningUrl, processCpuUs } from './sandbox-process.ts';
import { autocannon } from './autocannon.ts';

/**
 * What users run (issue 20, "GraphQL cost"): `npm start` as a fresh clone starts it
 * (`node dist/main.js`: embedded PGlite, embedded sandbox, the worker in the process)
 * beside the same gateway on PostgreSQL with its worker apart (embedded sandbox too, so the
 * database and the worker are the only difference). Both run at once, in processes of
 * their own, and are measured in alternating rounds:
 * - idle: the process's CPU (/proc) over a quiet stretch, as a share of one core;
 * - `query { balance { available { value } } }` under autocannon: CPU per request.
 *
 *   npm run bench:default -- [--connections 10] [--seconds 8] [--rounds 2] [--idle-seconds 20]
 */
const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    'idle-seconds': { type: 'string', default: '20' },
  },
});
const connections = Number(values.connections);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const idleSeconds = Number(values['idle-seconds']);
const QUERY = JSON.stringify({ query: '{ balance { available { value } } }' });

interface Gateway {
  name: string;
  url: string;
  child: ChildProcess;
}

async function startGateway(name: string, env: Record<string, string>): Promise<Gateway> {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningUrl(child, `${name}: the gateway`);
  return { name, url, child };
}

async function balanceRound(gateway: Gateway): Promise<{ requests: number; cpuUs: number }> {
  const before = processCpuUs(gateway.child.pid!);
  const result = await autocannon({
    url: `${gateway.url}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: QUERY,
    connections,
    duration: seconds,
  });
  const cpuUs = processCpuUs(gateway.child.pid!) - before;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${gateway.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { requests: result.requests.total, cpuUs };
}

async function main(): Promise<void> {
  if (!existsSync('dist/main.js')) throw new Error('dist/main.js is missing: npm run build (npm install runs it)');
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-default-'));
  const admin = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `bench_default_${process.pid}`;
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect();
  await adminClient.query(`CREATE DATABASE ${database}`);
  const databaseUrl = new URL(admin);
  databaseUrl.pathname = `/${database}`;
  const gateways: Gateway[] = [];
  try {
    gateways.push(await startGateway('npm start (PGlite, embedded sandbox, worker in process)', { DATA_DIR: join(dir, 'default') }));
    gateways.push(
      await startGateway('PostgreSQL, worker apart', {
        DATA_DIR: join(dir, 'pg'),
        DATABASE_URL: databaseUrl.toString(),
        WORKER_IN_PROCESS: 'false',
      }),
    );
    const [defaults, postgres] = gateways as [Gateway, Gateway];

    // Idle: both at once, after a first request each (as a user's first page load would).
    for (const gateway of gateways)
      await fetch(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: QUERY });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idleBefore = gateways.map((g) => processCpuUs(g.child.pid!));
    const idleStarted = process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1_000));
    const idleUs = Number(process.hrtime.bigint() - idleStarted) / 1_000;
    const idleShare = gateways.map((g, i) => (100 * (processCpuUs(g.child.pid!) - idleBefore[i]!)) / idleUs);

    const totals = new Map(gateways.map((g) => [g.name, { requests: 0, cpuUs: 0 }]));
    for (let round = 0; round < rounds; round++) {
      for (const gateway of round % 2 === 0 ? gateways : [...gateways].reverse()) {
        const { requests, cpuUs } = await balanceRound(gateway);
        const total = totals.get(gateway.name)!;
        total.requests += requests;
        total.cpuUs += cpuUs;
      }
    }
    const perRequest = (g: Gateway) => totals.get(g.name)!.cpuUs / totals.get(g.name)!.requests;
    const ratio = perRequest(defaults) / perRequest(postgres);
    const load = loadavg()[0]!.toFixed(2);
    console.log(`load ${load}; balance, autocannon ${connections} connections, ${rounds} × ${seconds} s each; idle over ${idleSeconds} s`);
    for (const [i, g] of gateways.entries()) {
      console.log(
        `${g.name.padEnd(58)} idle ${idleShare[i]!.toFixed(2).padStart(5)} % of a core   balance ${perRequest(g).toFixed(0).padStart(6)} µs CPU/request (${totals.get(g.name)!.requests} requests)`,
      );
    }
    console.log(`npm start ÷ PostgreSQL, CPU per balance request: ${ratio.toFixed(2)}× (target ≤ 2)`);
    const detail = `balance, autocannon ${connections} connections, ${rounds} × ${seconds} s each, both gateways at once`;
    report({
      bench: 'default',
      name: 'npm start: gateway CPU per balance request',
      value: Math.round(perRequest(defaults)),
      unit: 'µs',
      target: '—',
      detail,
    });
    report({
      bench: 'default',
      name: 'npm start ÷ PostgreSQL (worker apart), CPU per balance request',
      value: Number(ratio.toFixed(2)),
      unit: '×',
      target: '≤ 2',
      met: ratio <= 2,
      detail: `${detail}; PostgreSQL ${Math.round(perRequest(postgres))} µs`,
    });
    report({
      bench: 'default',
      name: 'npm start idle: CPU of the gateway process',
      value: Number(idleShare[0]!.toFixed(2)),
      unit: '% of a core',
      target: '< 2',
      met: idleShare[0]! < 2,
      detail: `over ${idleSeconds} s after one request; worker in process polling`,
    });
    report({
      bench: 'default',
      name: 'PostgreSQL gateway (worker apart) idle',
      value: Number(idleShare[1]!.toFixed(2)),
      unit: '% of a core',
      target: '—',
      detail: `over ${idleSeconds} s after one request`,
    });
  } finally {
    for (const g of gateways) g.child.kill('SIGTERM');
    await Promise.all(
      gateways.map((g) => new Promise((resolve) => (g.child.exitCode !== null ? resolve(null) : g.child.once('exit', resolve)))),
    );
    await adminClient.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await adminClient.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

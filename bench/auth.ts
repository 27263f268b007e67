import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as oidc from 'openid-client';
import pg from 'pg';
import { DEV_CLIENTS, DEV_GATEWAY_SETTINGS, startDevIdentityProvider } from '../scripts/identity-provider/dev-identity-provider.ts';
import { adminQuery } from './admin-query.ts';
import { autocannon } from './autocannon.ts';
import { report } from './report.ts';
import { listeningUrl, processCpuUs } from './sandbox-process.ts';
import { signInCookie } from './sign-in.ts';

/**
 * What each way in costs a GraphQL request (issue 40), each beside a key of GATEWAY_API_KEYS
 * (a hash looked up in memory) in the same run:
 * - `pgk`: a key an admin created (createApiKey): one SQL statement a request;
 * - `jwt`: a client-credentials access token of the identity provider, verified with jose
 *   against its JWKS (fetched once, then cached);
 * - `session`: the page's session cookie (signed in over HTTP): one SQL statement a request.
 * The gateway is `node dist/main.js` as `npm start` runs it (embedded sandbox, worker in the
 * process), on PGlite and then with DATABASE_URL on PostgreSQL, nothing else changed; the
 * development identity provider (scripts/identity-provider/) runs in this process, idle once
 * the token and the session are had. `{ me { identity role } }` (no database, no upstream) under
 * autocannon in alternating rounds; the gateway process's CPU from /proc, and on PostgreSQL its
 * backends' (pg_stat_activity's pids for the database), the statement's other half. --balance
 * adds `{ balance { available { value } } }` (one call to the embedded sandbox, in the same
 * process, each): the same costs beside a read that does some work. No timing is asserted.
 *
 *   npm run bench:auth -- [--connections 10] [--seconds 5] [--rounds 2] [--databases pglite,postgres]
 *                         [--kinds env,pgk,jwt,session] [--balance] [--profile DIR]
 *
 * --profile writes each gateway's CPU profile (node --cpu-prof) to DIR/auth-<database>.cpuprofile;
 * with --kinds of one kind, the profile is that kind's.
 */
const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    databases: { type: 'string', default: 'pglite,postgres' },
    kinds: { type: 'string', default: 'env,pgk,jwt,session' },
    balance: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const connections = Number(values.connections);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const KINDS = ['env', 'pgk', 'jwt', 'session'] as const;
type Kind = (typeof KINDS)[number];
const kinds = KINDS.filter((k) => values.kinds.split(',').includes(k));
const KIND_WORDS: Record<Kind, string> = {
  env: 'GATEWAY_API_KEYS key',
  pgk: 'created key (pgk_)',
  jwt: 'JWT access token',
  session: 'session cookie',
};
const QUERIES = { me: '{ me { identity role } }', balance: '{ balance { available { value } } }' };
type QueryName = keyof typeof QUERIES;
const queries: QueryName[] = values.balance ? ['me', 'balance'] : ['me'];
// Random and long: the gateway refuses keys under 32 characters or 128 estimated bits.
const ENV_KEY = randomBytes(32).toString('hex');
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

interface Gateway {
  database: string;
  url: string;
  child: ChildProcess;
  /** The PostgreSQL backends' CPU so far by pid; none on PGlite (the database is in the gateway's process). */
  serverCpu?: () => Promise<Map<number, number>>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startGateway(database: string, port: number, env: Record<string, string>): Promise<Gateway> {
  const flags = values.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values.profile}`];
  const child = spawn(process.execPath, [...flags, '--enable-source-maps', 'dist/main.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      // The production default (info): one request line each, read and dropped here.
      LOG_LEVEL: 'info',
      GATEWAY_API_KEYS: `bench-admin:admin:${ENV_KEY}`,
      ...DEV_GATEWAY_SETTINGS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await listeningUrl(child, `${database}: the gateway`);
  // The address the provider knows it by (the gateway logs localhost): sign-in's redirect is built from the Host asked.
  return { database, url: `http://127.0.0.1:${port}`, child };
}

/** A backend's CPU by pid, or nothing when it is gone (a pool drops idle connections): it is then not counted. */
function backendCpu(pid: number): Array<[number, number]> {
  try {
    return [[pid, processCpuUs(pid)]];
  } catch {
    return [];
  }
}

/** CPU used since `before`: a backend that started meanwhile counts from zero. */
const usedSince = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, us]) => sum + us - (before.get(pid) ?? 0), 0);

async function ask(url: string, headers: Record<string, string>, query: string, variables: object = {}): Promise<any> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown };
  if (!response.ok || body.errors !== undefined) throw new Error(`${query}: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}

const CREATE_KEY =
  'mutation($input: ApiKeyInput!) { createApiKey(input: $input) { ... on CreateApiKeySuccess { created { secret } } ... on Problem { code message } } }';

/** The headers each kind sends, checked to be the identity it should be. */
async function credentialsFor(gateway: Gateway, token: string): Promise<Record<Kind, Record<string, string>>> {
  const env = { authorization: `Bearer ${ENV_KEY}` };
  const created = await ask(gateway.url, env, CREATE_KEY, { input: { name: 'bench-service', role: 'OPERATOR' } });
  const secret = created.createApiKey.created?.secret as string | undefined;
  if (secret === undefined) throw new Error(`createApiKey: ${JSON.stringify(created)}`);
  const headers: Record<Kind, Record<string, string>> = {
    env,
    pgk: { authorization: `Bearer ${secret}` },
    jwt: { authorization: `Bearer ${token}` },
    // A POST with a JSON body is one a browser asks about first (CORS), so the cookie counts (credentials.ts).
    session: { cookie: await signInCookie(gateway.url, 'olga') },
  };
  const expected: Record<Kind, string> = {
    env: 'key:bench-admin',
    pgk: 'key:bench-service',
    jwt: `user:${DEV_CLIENTS.service.id}`,
    session: 'user:olga',
  };
  for (const kind of kinds) {
    const { me } = await ask(gateway.url, headers[kind], QUERIES.me);
    if (me.identity !== expected[kind]) throw new Error(`${kind}: me is ${me.identity}, not ${expected[kind]}`);
    if (values.balance) await ask(gateway.url, headers[kind], QUERIES.balance);
  }
  return headers;
}

interface Measured {
  requests: number;
  seconds: number;
  cpuUs: number;
  serverUs: number;
}

async function cannon(gateway: Gateway, headers: Record<string, string>, query: QueryName, duration: number): Promise<Measured> {
  const serverBefore = (await gateway.serverCpu?.()) ?? new Map<number, number>();
  const cpuBefore = processCpuUs(gateway.child.pid!);
  const started = performance.now();
  const result = await autocannon({
    url: `${gateway.url}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: QUERIES[query] }),
    connections,
    duration,
  });
  const elapsed = (performance.now() - started) / 1000;
  const cpuUs = processCpuUs(gateway.child.pid!) - cpuBefore;
  const serverUs = gateway.serverCpu === undefined ? 0 : usedSince(serverBefore, await gateway.serverCpu());
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${query}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { requests: result.requests.total, seconds: elapsed, cpuUs, serverUs };
}

interface Run {
  totals: Map<string, Measured>;
  /** µs of CPU a second with no request: the in-process worker's polls, timers. */
  idleUsPerS: number;
}

async function measure(gateway: Gateway, headers: Record<Kind, Record<string, string>>): Promise<Run> {
  // Warm each (JIT, pools, the JWKS, the noted person), let the last answers drain, then idle a moment.
  for (const query of queries) for (const kind of kinds) await cannon(gateway, headers[kind], query, 1);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const idleBefore = processCpuUs(gateway.child.pid!);
  const serverBefore = (await gateway.serverCpu?.()) ?? new Map<number, number>();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const idleUsPerS = (processCpuUs(gateway.child.pid!) - idleBefore) / 3;
  const serverIdle =
    gateway.serverCpu === undefined
      ? ''
      : `, its PostgreSQL backends ${(usedSince(serverBefore, await gateway.serverCpu()) / 30_000).toFixed(1)} %`;
  console.log(`\n${gateway.database}: gateway idle ${(idleUsPerS / 10_000).toFixed(1)} % of a core${serverIdle} (load average ${load()})`);

  const totals = new Map<string, Measured>();
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
        const r = await cannon(gateway, headers[kind], query, seconds);
        const key = `${query}/${kind}`;
        const t = totals.get(key) ?? { requests: 0, seconds: 0, cpuUs: 0, serverUs: 0 };
        totals.set(key, {
          requests: t.requests + r.requests,
          seconds: t.seconds + r.seconds,
          cpuUs: t.cpuUs + r.cpuUs,
          serverUs: t.serverUs + r.serverUs,
        });
      }
    }
  }
  return { totals, idleUsPerS };
}

function print(gateway: Gateway, { totals, idleUsPerS }: Run): void {
  const detail = `${gateway.database}, autocannon ${connections} connections, ${rounds} × ${seconds} s per kind, alternating`;
  const server = gateway.serverCpu !== undefined;
  console.log(`${detail} (load average ${load()}):`);
  console.log(
    `  ${'query'.padEnd(7)} ${'credential'.padEnd(22)} ${'req/s'.padStart(6)} ${'÷ env'.padStart(6)}   ` +
      `${'gateway CPU ms/req'.padStart(18)} ${'÷ env'.padStart(6)} ${'above idle'.padStart(10)}${server ? '   PostgreSQL CPU ms/req' : ''}`,
  );
  for (const query of queries) {
    const reference = totals.get(`${query}/env`);
    const rpsOf = (t: Measured) => t.requests / t.seconds;
    const cpuOf = (t: Measured) => t.cpuUs / t.requests / 1000;
    for (const kind of kinds) {
      const t = totals.get(`${query}/${kind}`)!;
      // Less what the process spends idle over as long: a kind that answers fewer requests a second bears more of it.
      const aboveIdle = (t.cpuUs - idleUsPerS * t.seconds) / t.requests / 1000;
      const ratio = (a: number, b: number | undefined) => (b === undefined ? '' : (a / b).toFixed(2));
      console.log(
        `  ${query.padEnd(7)} ${KIND_WORDS[kind].padEnd(22)} ${rpsOf(t).toFixed(0).padStart(6)} ${ratio(rpsOf(t), reference && rpsOf(reference)).padStart(6)}   ` +
          `${cpuOf(t).toFixed(3).padStart(18)} ${ratio(cpuOf(t), reference && cpuOf(reference)).padStart(6)} ${aboveIdle.toFixed(3).padStart(10)}` +
          (server ? `${(t.serverUs / t.requests / 1000).toFixed(3).padStart(25)}` : ''),
      );
      const conditions = `${detail}; ${rpsOf(t).toFixed(0)} req/s${server ? `; PostgreSQL backends ${(t.serverUs / t.requests / 1000).toFixed(3)} ms/request` : ''}`;
      report({
        bench: 'auth',
        name: `${query}, ${KIND_WORDS[kind]}: gateway CPU per request`,
        value: Number(cpuOf(t).toFixed(3)),
        unit: 'ms',
        target: '—',
        detail: conditions,
      });
      if (reference !== undefined && kind !== 'env')
        report({
          bench: 'auth',
          name: `${query}, ${KIND_WORDS[kind]} ÷ GATEWAY_API_KEYS key: throughput`,
          value: Number((rpsOf(t) / rpsOf(reference)).toFixed(2)),
          unit: '×',
          target: '—',
          detail: `${detail}; CPU per request ${(cpuOf(t) / cpuOf(reference)).toFixed(2)} ×`,
        });
    }
  }
}

async function stop(gateway: Gateway): Promise<void> {
  const exited = new Promise((resolve) => (gateway.child.exitCode !== null ? resolve(null) : gateway.child.once('exit', resolve)));
  gateway.child.kill('SIGTERM');
  await exited;
  if (values.profile === undefined) return;
  // Node names it CPU.<date>.<time>.<pid>.0.<n>.cpuprofile; thread 0 is the main thread.
  const made = readdirSync(values.profile).find((name) => name.includes(`.${gateway.child.pid}.0.`));
  if (made === undefined) return;
  const to = join(values.profile, `auth-${gateway.database}.cpuprofile`);
  renameSync(join(values.profile, made), to);
  console.log(`  gateway CPU profile: ${to}`);
}

async function main(): Promise<void> {
  if (!existsSync('dist/main.js')) throw new Error('dist/main.js is missing: npm run build (npm install runs it)');
  const databases = values.databases.split(',').filter((d) => d === 'pglite' || d === 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-auth-'));
  const admin = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `bench_auth_${process.pid}`;
  const ports = new Map<string, number>();
  for (const d of databases) ports.set(d, await freePort());
  // The provider sends the browser back to each gateway's callback: their ports are chosen first.
  const idp = await startDevIdentityProvider({
    gatewayUrls: [...ports.values()].map((p) => `http://127.0.0.1:${p}`),
    accessTokenTtl: 3600,
  });
  let monitor: pg.Client | undefined;
  let created = false;
  console.log(`auth: ${kinds.join(', ')}; ${queries.join(', ')}; load average ${load()}`);
  try {
    // A service's side, as a client team would: discovery and client credentials with openid-client.
    const client = await oidc.discovery(new URL(idp.issuer), DEV_CLIENTS.service.id, DEV_CLIENTS.service.secret, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
    const token = (await oidc.clientCredentialsGrant(client)).access_token;
    for (const name of databases) {
      const env: Record<string, string> = { DATA_DIR: join(dir, name), GATEWAY_OIDC_ISSUER: idp.issuer };
      if (name === 'postgres') {
        await adminQuery(admin, `CREATE DATABASE ${database}`);
        created = true;
        monitor = new pg.Client({ connectionString: admin });
        await monitor.connect();
        const url = new URL(admin);
        url.pathname = `/${database}`;
        env.DATABASE_URL = url.toString();
      }
      const gateway = await startGateway(name, ports.get(name)!, env);
      if (name === 'postgres') {
        const m = monitor!;
        gateway.serverCpu = async () => {
          const { rows } = await m.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
          return new Map(rows.flatMap(({ pid }) => backendCpu(pid)));
        };
      }
      try {
        const headers = await credentialsFor(gateway, token);
        print(gateway, await measure(gateway, headers));
      } finally {
        await stop(gateway);
      }
    }
  } finally {
    await idp.close();
    await monitor?.end();
    if (created) await adminQuery(admin, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

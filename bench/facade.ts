import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'undici';
import { report } from './report.ts';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.ts';
import { autocannon } from './autocannon.ts';
import { benchCredentials, startGatewayProcess } from './gateway-process.ts';

/**
 * The GraphQL facade against the upstream it fronts (issue 9, target 3). The same read,
 * the main balance, is asked of the sandbox's REST endpoint and of the gateway as
 * `query { balance { available { value } } }`, in one run:
 * - throughput by autocannon with the same connections, alternating REST and GraphQL rounds;
 * - the p50 overhead from requests timed one by one on one kept-alive connection each,
 *   alternating, so both sides see the same moment of a shared machine;
 * - the gateway's and the sandbox's CPU per request (process.cpuUsage of the gateway,
 *   /proc for the sandbox);
 * - `providers` with details: upstream calls per cache period, read from the gateway's /metrics;
 * - the floor: a bare Node proxy of the same read (node:http plus the same kept-alive undici
 *   pool, no GraphQL, no logging) in the gateway's process, the least any Node facade costs.
 * The gateway and the sandbox run in processes of their own, as in production; no cache of
 * `balance` is involved: every GraphQL request makes one upstream call.
 *
 *   npm run bench:facade -- [--connections 10] [--seconds 8] [--rounds 2] [--samples 2000] [--profile DIR]
 *
 * --profile writes the gateway's CPU profile (node --cpu-prof, main thread) to
 * DIR/facade-gateway.cpuprofile; open it in Chrome DevTools or VS Code.
 */
const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    samples: { type: 'string', default: '2000' },
    profile: { type: 'string' },
  },
});

const credentials = benchCredentials;
// Random and long: the gateway refuses keys under 32 characters or 128 estimated bits.
const API_KEY = randomBytes(32).toString('hex');
const BALANCE_QUERY = JSON.stringify({ query: 'query { balance { available { value } } }' });
const PROVIDERS_QUERY = JSON.stringify({
  query: '{ providers { code name legalName limits { min max } parameters { name required validationPattern } } }',
});

interface Side {
  name: 'REST' | 'GraphQL' | 'floor';
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

interface Round {
  requests: number;
  seconds: number;
  gatewayCpuUs: number;
  sandboxCpuUs: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-facade-'));
  const connections = Number(values.connections);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const samples = Number(values.samples);
  const sandbox = await startSandboxProcess({ ...credentials, DATA_DIR: dir });
  const gateway = await startGatewayProcess(dir, sandbox.url, API_KEY, values.profile);
  try {
    const rest: Side = {
      name: 'REST',
      url: `${sandbox.url}/partner/payout/v2/agents/${credentials.PAYOUT_AGENT_ID}/balance`,
      method: 'GET',
      headers: { authorization: `Bearer ${credentials.PAYOUT_API_TOKEN}`, accept: 'application/json' },
    };
    const graphql: Side = {
      name: 'GraphQL',
      url: `${gateway.url}/graphql`,
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
      body: BALANCE_QUERY,
    };
    const floor: Side = { ...graphql, name: 'floor', url: `${gateway.floorUrl}/graphql` };
    await expectBalance(rest, (body) => body.available.value);
    await expectBalance(graphql, (body) => body.data.balance.available.value);
    await expectBalance(floor, (body) => body.data.balance.available.value);

    // Warm both (JIT, connection pools), then alternate so drift in the machine's load hits both.
    await cannon(rest, connections, 2);
    await cannon(graphql, connections, 2);
    await cannon(floor, connections, 2);
    const measured: Record<Side['name'], Round[]> = { REST: [], GraphQL: [], floor: [] };
    for (let round = 0; round < rounds; round++) {
      for (const side of [rest, graphql, floor]) {
        const gatewayBefore = await gateway.cpuUs();
        const sandboxBefore = sandbox.cpuUs();
        const { requests, elapsed } = await cannon(side, connections, seconds);
        measured[side.name].push({
          requests,
          seconds: elapsed,
          gatewayCpuUs: (await gateway.cpuUs()) - gatewayBefore,
          sandboxCpuUs: sandbox.cpuUs() - sandboxBefore,
        });
      }
    }
    const latency = await sequentialLatency(rest, graphql, samples);
    const providers = await providerCalls(gateway.url);

    const total = (side: Side['name']) =>
      measured[side].reduce(
        (sum, r) => ({
          requests: sum.requests + r.requests,
          seconds: sum.seconds + r.seconds,
          gatewayCpuUs: sum.gatewayCpuUs + r.gatewayCpuUs,
          sandboxCpuUs: sum.sandboxCpuUs + r.sandboxCpuUs,
        }),
        { requests: 0, seconds: 0, gatewayCpuUs: 0, sandboxCpuUs: 0 },
      );
    const r = total('REST');
    const g = total('GraphQL');
    const f = total('floor');
    const floorRps = f.requests / f.seconds;
    const restRps = r.requests / r.seconds;
    const graphqlRps = g.requests / g.seconds;
    const load = loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
    console.log(`\nfacade: balance, ${connections} connections, ${rounds} × ${seconds} s per side (load average ${load}):`);
    console.log(`  REST direct    ${restRps.toFixed(0)} req/s; sandbox CPU ${(r.sandboxCpuUs / r.requests).toFixed(0)} µs/request`);
    console.log(
      `  GraphQL        ${graphqlRps.toFixed(0)} req/s = ${((100 * graphqlRps) / restRps).toFixed(0)} % of REST (target ≥ 50 %); ` +
        `gateway CPU ${(g.gatewayCpuUs / g.requests).toFixed(0)} µs/request, sandbox CPU ${(g.sandboxCpuUs / g.requests).toFixed(0)} µs/request`,
    );
    console.log(
      `  floor          ${floorRps.toFixed(0)} req/s = ${((100 * floorRps) / restRps).toFixed(0)} % of REST: a bare Node proxy (http + undici, no GraphQL); ` +
        `its CPU ${(f.gatewayCpuUs / f.requests).toFixed(0)} µs/request`,
    );
    console.log(
      `  p50 one by one REST ${latency.rest.toFixed(3)} ms, GraphQL ${latency.graphql.toFixed(3)} ms: overhead ${(latency.graphql - latency.rest).toFixed(3)} ms (target < 1 ms); ` +
        `p90 overhead ${(latency.graphql90 - latency.rest90).toFixed(3)} ms; ${samples} requests each`,
    );
    console.log(
      `  providers      ${providers.queries} queries with details → ${providers.firstCalls} upstream calls for the first, ${providers.laterCalls} for the ${providers.queries - 1} after ` +
        `(target: 1 list + 1 per provider = ${providers.expected} per cache period)`,
    );
    const detail = `balance, autocannon ${connections} connections, ${rounds} × ${seconds} s per side, no cache`;
    const share = (100 * graphqlRps) / restRps;
    report({
      bench: 'facade',
      name: 'GraphQL throughput ÷ direct REST',
      value: Math.round(share),
      unit: '%',
      target: '≥ 50',
      met: share >= 50,
      detail: `${detail}; ${graphqlRps.toFixed(0)} against ${restRps.toFixed(0)} req/s`,
    });
    report({
      bench: 'facade',
      name: 'gateway CPU per request',
      value: Math.round(g.gatewayCpuUs / g.requests),
      unit: 'µs',
      target: '—',
      detail,
    });
    report({
      bench: 'facade',
      name: 'bare Node proxy (floor) ÷ direct REST',
      value: Math.round((100 * floorRps) / restRps),
      unit: '%',
      target: '—',
      detail: `${detail}; its CPU ${(f.gatewayCpuUs / f.requests).toFixed(0)} µs/request`,
    });
    const overhead = latency.graphql - latency.rest;
    report({
      bench: 'facade',
      name: 'p50 overhead, one request at a time',
      value: Number(overhead.toFixed(2)),
      unit: 'ms',
      target: '< 1',
      met: overhead < 1,
      detail: `${samples} requests each; p90 overhead ${(latency.graphql90 - latency.rest90).toFixed(2)} ms`,
    });
    report({
      bench: 'facade',
      name: 'upstream calls for `providers` with details, per cache period',
      value: providers.firstCalls + providers.laterCalls,
      unit: '',
      target: `${providers.expected} (1 list + 1 per provider)`,
      met: providers.firstCalls + providers.laterCalls <= providers.expected,
      detail: `${providers.queries} queries`,
    });
  } finally {
    await gateway.stop();
    if (values.profile !== undefined) {
      // Node names it CPU.<date>.<time>.<pid>.0.<n>.cpuprofile; thread 0 is the main thread.
      const made = readdirSync(values.profile).find((name) => name.includes(`.${gateway.pid}.0.`));
      if (made !== undefined) {
        renameSync(join(values.profile, made), join(values.profile, 'facade-gateway.cpuprofile'));
        console.log(`  gateway CPU profile: ${join(values.profile, 'facade-gateway.cpuprofile')}`);
      }
    }
    sandbox.process.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function expectBalance(side: Side, read: (body: any) => unknown): Promise<void> {
  const response = await fetch(side.url, { method: side.method, headers: side.headers, body: side.body });
  const body = await response.json();
  if (!response.ok || typeof read(body) !== 'string')
    throw new Error(`${side.name} balance did not answer: ${response.status} ${JSON.stringify(body)}`);
}

async function cannon(side: Side, connections: number, seconds: number): Promise<{ requests: number; elapsed: number }> {
  const started = performance.now();
  const result = await autocannon({
    url: side.url,
    method: side.method,
    headers: side.headers,
    body: side.body,
    connections,
    duration: seconds,
  });
  const elapsed = (performance.now() - started) / 1000;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${side.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { requests: result.requests.total, elapsed };
}

/** Requests timed one by one, alternating sides; p50 and p90 in ms. */
async function sequentialLatency(rest: Side, graphql: Side, samples: number) {
  const timings: Record<Side['name'], number[]> = { REST: [], GraphQL: [], floor: [] };
  const clients = new Map<Side, Client>([rest, graphql].map((side) => [side, new Client(new URL(side.url).origin, { pipelining: 1 })]));
  const once = async (side: Side) => {
    const url = new URL(side.url);
    const started = process.hrtime.bigint();
    const response = await clients.get(side)!.request({ path: url.pathname, method: side.method, headers: side.headers, body: side.body });
    await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${side.name}: ${response.statusCode}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  try {
    for (let i = 0; i < 200; i++) for (const side of [rest, graphql]) await once(side);
    for (let i = 0; i < samples; i++) {
      for (const side of i % 2 === 0 ? [rest, graphql] : [graphql, rest]) timings[side.name].push(await once(side));
    }
  } finally {
    for (const client of clients.values()) await client.close();
  }
  const at = (list: number[], q: number) => [...list].sort((a, b) => a - b)[Math.floor(q * (list.length - 1))]!;
  return {
    rest: at(timings.REST, 0.5),
    graphql: at(timings.GraphQL, 0.5),
    rest90: at(timings.REST, 0.9),
    graphql90: at(timings.GraphQL, 0.9),
  };
}

/** `providers` with details, asked many times (some at once) within one cache period. */
async function providerCalls(gatewayUrl: string) {
  const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
  const upstreamProviderCalls = async () => {
    const text = await (await fetch(`${gatewayUrl}/metrics`, { headers })).text();
    return [...text.matchAll(/^payout_upstream_requests_total\{[^}]*endpoint="[^"]*providers[^"]*"[^}]*\} (\d+)/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
  };
  const ask = async () => {
    const response = await fetch(`${gatewayUrl}/graphql`, { method: 'POST', headers, body: PROVIDERS_QUERY });
    const body = (await response.json()) as { data?: { providers: unknown[] } };
    if (body.data?.providers === undefined) throw new Error(`providers did not answer: ${JSON.stringify(body)}`);
    return body.data.providers.length;
  };
  const before = await upstreamProviderCalls();
  const count = (await Promise.all([ask(), ask(), ask()]))[0]!;
  const afterFirst = await upstreamProviderCalls();
  const queries = 200;
  for (let i = 3; i < queries; i += 10) await Promise.all(Array.from({ length: 10 }, ask));
  const afterAll = await upstreamProviderCalls();
  return { queries, firstCalls: afterFirst - before, laterCalls: afterAll - afterFirst, expected: 1 + count };
}

await main();

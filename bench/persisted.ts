import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { report } from './report.ts';
import { startSandboxProcess } from './sandbox-process.ts';
import { autocannon } from './autocannon.ts';
import { benchCredentials, startGatewayProcess } from './gateway-process.ts';

/**
 * What a persisted operation saves the gateway (issue 20): the `balance` query sent as its
 * full text, as a `documentId`, and as an APQ hash, in one run against one gateway
 * process, alternating rounds so the machine's load hits each the same. A persisted
 * operation arrives parsed and validated (src/graphql/persisted-operations.ts); the same
 * text again finds its parse and validation in yoga's cache (keyed by the text), and
 * "new text" (a comment no request repeats) misses it and pays for both every time, as
 * a client that builds its queries, or the first request of each, does. Reported: the
 * gateway's CPU per request (process.cpuUsage of its process) and the throughput, each
 * beside the repeated text's.
 *
 * The gateway is bench/gateway-process.ts's (`npm start`'s composition over the sandbox
 * in a process of its own, worker apart). The documentId is the hash the APQ request
 * registered: documentId lookups find what APQ registered in the process as well as the
 * manifests.
 *
 *   npm run bench:persisted -- [--connections 10] [--seconds 6] [--rounds 3]
 */
const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '3' },
  },
});

const credentials = benchCredentials;
const API_KEY = randomBytes(32).toString('hex');
const QUERY = 'query Balance { balance { available { value currency } } }';
const HASH = createHash('sha256').update(QUERY).digest('hex');

let sent = 0;
/** The text with a comment no request repeats: yoga's cache keyed by the text misses, so each parses and validates. */
const freshText = () => JSON.stringify({ query: `${QUERY} # ${++sent}` });

const SIDES = [
  { name: 'query text', body: JSON.stringify({ query: QUERY }) },
  { name: 'new text', body: JSON.stringify({ query: QUERY }), fresh: true },
  { name: 'documentId', body: JSON.stringify({ documentId: `sha256:${HASH}` }) },
  { name: 'APQ hash', body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } }) },
] as const;
type Side = { name: string; body: string; fresh?: boolean };
type SideName = Side['name'];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-persisted-'));
  const connections = Number(values.connections);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const sandbox = await startSandboxProcess({ ...credentials, DATA_DIR: dir });
  const gateway = await startGatewayProcess(dir, sandbox.url, API_KEY);
  const url = `${gateway.url}/graphql`;
  const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', accept: 'application/json' };
  try {
    // Registers the hash (APQ), then checks each side answers the balance.
    await ask(url, headers, JSON.stringify({ query: QUERY, extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } }));
    for (const side of SIDES) await ask(url, headers, side.body);
    for (const side of SIDES) await cannon(url, headers, side, connections, 2);
    const measured = new Map<SideName, { requests: number; seconds: number; cpuUs: number }>(
      SIDES.map((s) => [s.name, { requests: 0, seconds: 0, cpuUs: 0 }]),
    );
    for (let round = 0; round < rounds; round++) {
      for (const side of (round % 2 === 0 ? SIDES : [...SIDES].reverse()) as readonly Side[]) {
        const before = await gateway.cpuUs();
        const { requests, elapsed } = await cannon(url, headers, side, connections, seconds);
        const total = measured.get(side.name)!;
        total.requests += requests;
        total.seconds += elapsed;
        total.cpuUs += (await gateway.cpuUs()) - before;
      }
    }
    const load = loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
    const text = measured.get('query text')!;
    const cpu = (m: { requests: number; cpuUs: number }) => m.cpuUs / m.requests;
    const rps = (m: { requests: number; seconds: number }) => m.requests / m.seconds;
    console.log(
      `\npersisted operations: balance, ${connections} connections, ${rounds} × ${seconds} s per side, alternating (load average ${load}):`,
    );
    const detail = `balance, autocannon ${connections} connections, ${rounds} × ${seconds} s per side, one gateway process (worker apart)`;
    for (const side of SIDES) {
      const m = measured.get(side.name)!;
      const ratio = cpu(m) / cpu(text);
      console.log(
        `  ${side.name.padEnd(11)} gateway CPU ${cpu(m).toFixed(0)} µs/request (${ratio.toFixed(2)} × the text's), ${rps(m).toFixed(0)} req/s (${(rps(m) / rps(text)).toFixed(2)} × the text's)`,
      );
      report({
        bench: 'persisted',
        name: `gateway CPU per request, ${side.name}`,
        value: Math.round(cpu(m)),
        unit: 'µs',
        target: '—',
        detail,
      });
      if (side.name !== 'query text') {
        report({
          bench: 'persisted',
          name: `gateway CPU, ${side.name} ÷ query text`,
          value: Number(ratio.toFixed(2)),
          unit: '×',
          target: '—',
          detail: `${detail}; ${(rps(m) / rps(text)).toFixed(2)} × the text's throughput`,
        });
      }
    }
  } finally {
    await gateway.stop();
    sandbox.process.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ask(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const answer = (await response.json()) as { data?: { balance?: { available?: { value?: unknown } } } };
  if (!response.ok || typeof answer.data?.balance?.available?.value !== 'string')
    throw new Error(`${body}: ${response.status} ${JSON.stringify(answer)}`);
}

async function cannon(url: string, headers: Record<string, string>, side: Side, connections: number, seconds: number) {
  const started = performance.now();
  const requests =
    side.fresh === true ? [{ setupRequest: (request: { body?: string }) => ({ ...request, body: freshText() }) }] : undefined;
  const result = await autocannon({ url, method: 'POST', headers, body: side.body, requests, connections, duration: seconds });
  const elapsed = (performance.now() - started) / 1000;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${side.name}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { requests: result.requests.total, elapsed };
}

await main();

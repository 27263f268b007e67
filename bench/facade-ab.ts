import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { autocannon } from './autocannon.ts';
import { benchCredentials, startGatewayProcess, type GatewayProcess } from './gateway-process.ts';
import { startSandboxProcess } from './sandbox-process.ts';

/**
 * Gateway variants side by side (issue 41): on a machine shared with other benches the load
 * moves more between two runs than a plugin costs, so every variant runs in one process of its
 * own at the same time, over one sandbox, and the rounds alternate between them and the bare
 * Node proxy (bench/gateway-process.ts's floor). Each variant's figure is its gateway CPU per
 * `balance` request over the floor's in the same run.
 *
 *   npm run bench:facade-ab -- --variant 'base' --variant 'no log|LOG_LEVEL=warn' \
 *     --variant 'main|cwd=/path/to/other/checkout' [--connections 10] [--seconds 3] [--rounds 4] [--together]
 *
 * --together loads the variants at the same moment (each its own connections), the floor
 * alone after them: a paired comparison, each moment of the machine's load shared by all
 * variants; their figures against the floor's are then higher than alone (they share the cores).
 * A variant is `label|NAME=value|…`; `cwd=DIR` runs the gateway of another checkout (its
 * dependencies installed), to compare a change with the code before it.
 */
const { values } = parseArgs({
  options: {
    variant: { type: 'string', multiple: true, default: ['base'] },
    connections: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '4' },
    together: { type: 'boolean', default: false },
  },
});

const API_KEY = randomBytes(32).toString('hex');
const BALANCE_QUERY = JSON.stringify({ query: 'query { balance { available { value } } }' });

interface Variant {
  label: string;
  env: Record<string, string>;
  cwd: string | undefined;
}

function parseVariant(text: string): Variant {
  const [label, ...settings] = text.split('|');
  const env: Record<string, string> = {};
  let cwd: string | undefined;
  for (const setting of settings) {
    const at = setting.indexOf('=');
    if (at < 1) throw new Error(`--variant ${text}: "${setting}" is not NAME=value`);
    const name = setting.slice(0, at);
    if (name === 'cwd') cwd = setting.slice(at + 1);
    else env[name] = setting.slice(at + 1);
  }
  return { label: label!, env, cwd };
}

async function main(): Promise<void> {
  const variants = values.variant.map(parseVariant);
  const connections = Number(values.connections);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-facade-ab-'));
  const sandbox = await startSandboxProcess({ ...benchCredentials, DATA_DIR: dir });
  const gateways: GatewayProcess[] = [];
  try {
    for (const [i, variant] of variants.entries()) {
      const own = join(dir, `variant-${i}`);
      mkdirSync(own);
      gateways.push(await startGatewayProcess(own, sandbox.url, API_KEY, undefined, { env: variant.env, cwd: variant.cwd }));
    }
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', accept: 'application/json' };
    const sides = [
      ...gateways.map((gateway, i) => ({ label: variants[i]!.label, url: `${gateway.url}/graphql`, gateway })),
      { label: 'floor', url: `${gateways[0]!.floorUrl}/graphql`, gateway: gateways[0]! },
    ];
    const cannon = async (url: string, duration: number) => {
      const result = await autocannon({ url, method: 'POST', headers, body: BALANCE_QUERY, connections, duration });
      if (result.errors > 0 || result.non2xx > 0) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx`);
      return result.requests.total;
    };
    for (const side of sides) await cannon(side.url, 2);
    const perRequest = new Map<string, number[]>(sides.map((side) => [side.label, []]));
    const userPerRequest = new Map<string, number[]>(sides.map((side) => [side.label, []]));
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Rotated each round so no variant always follows the same one.
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      const measure = async (group: typeof sides) => {
        const before = await Promise.all(group.map((side) => side.gateway.cpu()));
        const requests = await Promise.all(group.map((side) => cannon(side.url, seconds)));
        const after = await Promise.all(group.map((side) => side.gateway.cpu()));
        group.forEach((side, i) => {
          const [b, a, n] = [before[i]!, after[i]!, requests[i]!];
          perRequest.get(side.label)!.push((a.user + a.system - b.user - b.system) / n);
          userPerRequest.get(side.label)!.push((a.user - b.user) / n);
        });
      };
      if (values.together) {
        await measure(sides.slice(0, -1));
        await measure(sides.slice(-1));
      } else for (const side of order) await measure([side]);
      loads.push(loadavg()[0]!);
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) / 2)]!;
    const floor = median(perRequest.get('floor')!);
    const userFloor = median(userPerRequest.get('floor')!);
    console.log(
      `\nfacade A/B: balance, ${connections} connections, ${rounds} rounds × ${seconds} s per side; ` +
        `load average (1 min) ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}:`,
    );
    for (const side of sides) {
      const list = perRequest.get(side.label)!;
      console.log(
        `  ${side.label.padEnd(24)} ${median(list).toFixed(0).padStart(5)} µs/request (median; rounds ${list.map((n) => n.toFixed(0)).join(', ')})` +
          (side.label === 'floor' ? '' : ` = ${(median(list) / floor).toFixed(2)}× the floor`),
      );
      // Round by round against the first variant: the paired figure, robust to the load moving between rounds.
      const first = perRequest.get(sides[0]!.label)!;
      if (side !== sides[0] && side.label !== 'floor')
        console.log(
          `  ${''.padEnd(24)} ${median(list.map((n, i) => n / first[i]!)).toFixed(2)}× ${sides[0]!.label}'s, median of the rounds' ratios`,
        );
      const user = median(userPerRequest.get(side.label)!);
      console.log(
        `  ${''.padEnd(24)} ${user.toFixed(0).padStart(5)} µs/request user CPU` +
          (side.label === 'floor' ? '' : ` = ${(user / userFloor).toFixed(2)}× the floor's`),
      );
    }
  } finally {
    for (const gateway of gateways) await gateway.stop();
    sandbox.process.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

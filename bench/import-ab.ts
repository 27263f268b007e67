import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ensureDevKeyPair } from '../src/config/keys.ts';
import { createSandbox } from '../src/sandbox/server.ts';

/**
 * The import of this tree against the import of another (a worktree of an earlier commit),
 * alternating in one process over the same file, each on a database of its own: separate
 * runs on a shared machine swing by more than the change being measured. Per import: wall
 * time, this process's CPU, and the CPU of the PostgreSQL backends serving that database
 * (from /proc, by the database name in their title), each per row.
 *
 *   npx tsx bench/import-ab.ts --base /work/wt/base18 [--rows 100000 --pairs 4 --kind postgresql|pglite]
 */
const { values } = parseArgs({
  options: {
    base: { type: 'string', default: '/work/wt/base18' },
    rows: { type: 'string', default: '100000' },
    pairs: { type: 'string', default: '4' },
    kind: { type: 'string', default: 'postgresql' },
    only: { type: 'string' },
    // SQL run on the new side's database after its migrations: an experiment (e.g. an index dropped).
    'new-sql': { type: 'string' },
    'admin-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const TICK = 100; // USER_HZ on Linux
type Side = 'base' | 'new';

interface Tree {
  side: Side;
  db: { prisma: unknown; bulk: unknown; query: unknown; migrate(): Promise<void>; close(): Promise<void> };
  importer: { import(request: { source: AsyncIterable<Uint8Array>; force?: boolean }): Promise<{ rowCount: number; status: string }> };
  dbName: string | undefined;
}

async function open(side: Side, root: string, sandboxUrl: string, keysDir: string, url: string | undefined): Promise<Tree> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const [
    { BatchImporter },
    { CardDataVault },
    { DataKeyring, dataKeyFrom },
    { openDatabase },
    { createLogger },
    { ProviderCatalogue },
    { PayoutClient },
  ] = await Promise.all([
    // Before issue 28 the importer stood in src/batch/ itself.
    load(
      existsSync(join(root, 'src/batch/import/batch-importer.ts')) ? 'src/batch/import/batch-importer.ts' : 'src/batch/batch-importer.ts',
    ),
    load('src/batch/card-data.ts'),
    load('src/crypto/data-keys.ts'),
    load('src/db/database.ts'),
    load('src/log/logger.ts'),
    load('src/payments/provider-catalogue.ts'),
    load('src/payout/client.ts'),
  ]);
  const db = await openDatabase(url === undefined ? { dataDir: undefined } : { databaseUrl: url });
  await db.migrate();
  const upstream = new PayoutClient({
    baseUrl: sandboxUrl,
    agentId: 'bench',
    apiToken: 'bench-token',
    privateKeyPem: readFileSync(ensureDevKeyPair(keysDir).privateKeyFile, 'utf8'),
    connectTimeoutMs: 5_000,
    headersTimeoutMs: 15_000,
    bodyTimeoutMs: 15_000,
    maxRetries: 3,
  });
  const importer = new BatchImporter({
    prisma: db.prisma,
    bulk: db.bulk,
    query: db.query,
    catalogue: new ProviderCatalogue(upstream, 600_000),
    client: upstream,
    limits: { maxRows: 10_000_000, maxBytes: 2 ** 30 },
    cardData: new CardDataVault(new DataKeyring(dataKeyFrom(randomBytes(32))), 30),
    logger: createLogger({ level: 'silent' }),
  });
  return { side, db, importer, dbName: url === undefined ? undefined : new URL(url).pathname.slice(1) };
}

/** CPU ticks of every backend serving `dbName`, sampled while the import runs (backends may end before it does). */
function backendSampler(dbName: string) {
  const seen = new Map<number, { first: number; last: number }>();
  const sample = () => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        if (!title.startsWith('postgres: ') || !title.includes(` ${dbName} `)) continue;
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ticks = Number(fields[11]) + Number(fields[12]);
        const pid = Number(entry);
        const known = seen.get(pid);
        if (known === undefined) seen.set(pid, { first: ticks, last: ticks });
        else known.last = ticks;
      } catch {
        // ended meanwhile
      }
    }
  };
  sample();
  const baseline = new Set(seen.keys());
  const timer = setInterval(sample, 50);
  return {
    stop(): number {
      clearInterval(timer);
      sample();
      let ticks = 0;
      for (const [pid, { first, last }] of seen) ticks += baseline.has(pid) ? last - first : last;
      return ticks / TICK;
    },
  };
}

async function run(tree: Tree, file: string, rows: number) {
  const sampler = tree.dbName === undefined ? undefined : backendSampler(tree.dbName);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const batch = await tree.importer.import({ source: createReadStream(file, { highWaterMark: 64 * 1024 }), force: true });
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const server = sampler?.stop() ?? 0;
  if (batch.rowCount !== rows) throw new Error(`${tree.side}: imported ${batch.rowCount} rows of ${rows}`);
  const us = (seconds: number) => (seconds * 1e6) / rows;
  return { wall: us(wall), node: us((used.user + used.system) / 1e6), server: us(server), load: loadavg()[0] ?? 0 };
}

async function createDb(adminUrl: string, name: string, drop = false) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(drop ? `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)` : `CREATE DATABASE "${name}"`);
  } finally {
    await c.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function main(): Promise<void> {
  const rows = Number(values.rows);
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-ab-'));
  const file = join(dir, 'payroll.csv');
  if (
    spawnSync(process.execPath, ['--import', 'tsx', 'samples/generate-payroll.ts', '--rows', String(rows), '--out', file], {
      stdio: 'ignore',
    }).status !== 0
  )
    throw new Error('generate failed');
  const small = join(dir, 'small.csv');
  spawnSync(process.execPath, ['--import', 'tsx', 'samples/generate-payroll.ts', '--rows', '1000', '--out', small], { stdio: 'ignore' });
  const keysDir = join(dir, 'keys');
  const sandbox = createSandbox({
    agentId: 'bench',
    apiToken: 'bench-token',
    publicKeyPem: readFileSync(ensureDevKeyPair(keysDir).publicKeyFile, 'utf8'),
    webhookSecret: 'bench-secret',
    balance: '999999999999.00',
  });
  const sandboxUrl = await sandbox.listen();
  const onPg = values.kind === 'postgresql';
  const names = onPg ? [`payout_ab_base_${randomBytes(3).toString('hex')}`, `payout_ab_new_${randomBytes(3).toString('hex')}`] : [];
  const trees: Tree[] = [];
  try {
    const urls = onPg ? await Promise.all(names.map((n) => createDb(values['admin-url']!, n))) : [undefined, undefined];
    const sides: Array<[Side, string]> = [
      ['base', resolve(values.base!)],
      ['new', process.cwd()],
    ];
    for (const [index, [side, root]] of sides.entries()) {
      if (values.only !== undefined && values.only !== side) continue;
      const tree = await open(side, root, sandboxUrl, keysDir, urls[index]);
      if (side === 'new' && values['new-sql'] !== undefined)
        await (tree.db.query as (sql: string, params: unknown[]) => Promise<unknown>)(values['new-sql'], []);
      trees.push(tree);
    }
    for (const tree of trees) await run(tree, small, 1000);
    const results = new Map<Side, Array<Awaited<ReturnType<typeof run>>>>(trees.map((t) => [t.side, []]));
    for (let pair = 0; pair < Number(values.pairs); pair++) {
      const order = pair % 2 === 0 ? trees : [...trees].reverse();
      for (const tree of order) {
        const r = await run(tree, file, rows);
        results.get(tree.side)!.push(r);
        console.log(
          `${values.kind} pair ${pair + 1} ${tree.side}: ${r.wall.toFixed(1)} µs/row wall (${Math.round(1e6 / r.wall)} rows/s), node ${r.node.toFixed(1)} µs, server ${r.server.toFixed(1)} µs, load ${r.load.toFixed(1)}`,
        );
      }
    }
    for (const [side, list] of results) {
      const mean = (pick: (r: (typeof list)[number]) => number) => list.reduce((s, r) => s + pick(r), 0) / list.length;
      const median = (pick: (r: (typeof list)[number]) => number) => {
        const sorted = list.map(pick).sort((a, b) => a - b);
        return sorted[Math.floor(sorted.length / 2)]!;
      };
      console.log(
        `${values.kind} ${side} mean: ${mean((r) => r.wall).toFixed(1)} µs/row wall (median ${median((r) => r.wall).toFixed(1)}, ${Math.round(1e6 / mean((r) => r.wall))} rows/s), ` +
          `node ${mean((r) => r.node).toFixed(1)} µs, server ${mean((r) => r.server).toFixed(1)} µs, load ${Math.min(...list.map((r) => r.load)).toFixed(1)}–${Math.max(...list.map((r) => r.load)).toFixed(1)}`,
      );
    }
  } finally {
    for (const tree of trees) await tree.db.close();
    for (const name of names) await createDb(values['admin-url']!, name, true);
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

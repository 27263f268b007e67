import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse';
import { build } from 'esbuild';
import { BatchImporter } from '../src/batch/import/batch-importer.ts';
import { CardDataVault } from '../src/batch/card-data.ts';
import { ensureDevKeyPair } from '../src/config/keys.ts';
import { DataKeyring, dataKeyFrom } from '../src/crypto/data-keys.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { createLogger } from '../src/log/logger.ts';
import { ProviderCatalogue } from '../src/payments/provider-catalogue.ts';
import { PayoutClient } from '../src/payout/client.ts';
import { createSandbox } from '../src/sandbox/server.ts';
import { adminQuery } from './admin-query.ts';
import { report } from './report.ts';

/**
 * Import throughput and memory (issue 9, targets 1 and 2), every figure beside its target
 * and, for speed, beside csv-parse alone reading the same file in the same run:
 * PostgreSQL and PGlite at 1,000 and 100,000 rows, and 1,000,000 rows on PostgreSQL in a
 * child process whose peak resident memory (VmHWM: the whole process) is read at its end;
 * then `payout batch run` of the 100,000 rows as a person runs it (dist/payout.js, so
 * `npm run build` first), through the API it serves itself on the same database, with an
 * operator's key so that it imports and stops before paying.
 *
 *   npm run bench:import [-- --rows 100000 --big 1000000 --admin-url postgres://… --no-pglite]
 */
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    big: { type: 'string', default: '1000000' },
    'admin-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    'no-pglite': { type: 'boolean', default: false },
    // The child process of the 1M-row run.
    child: { type: 'boolean', default: false },
    file: { type: 'string' },
    database: { type: 'string' },
    sandbox: { type: 'string' },
    keys: { type: 'string' },
  },
});
const logger = createLogger({ level: 'silent' });
const BENCH_DATA_KEY = randomBytes(32);
const load = () => (loadavg()[0] ?? 0).toFixed(2);

interface ImportRun {
  rows: number;
  seconds: number;
  status: string;
  /** VmHWM of the process that imported, bytes. */
  peakRss: number;
}

function client(url: string, keysDir: string): PayoutClient {
  return new PayoutClient({
    baseUrl: url,
    agentId: 'bench',
    apiToken: 'bench-token',
    privateKeyPem: readFileSync(ensureDevKeyPair(keysDir).privateKeyFile, 'utf8'),
    connectTimeoutMs: 5_000,
    headersTimeoutMs: 15_000,
    bodyTimeoutMs: 15_000,
    maxRetries: 3,
  });
}

function importer(db: Database, upstream: PayoutClient): BatchImporter {
  return new BatchImporter({
    prisma: db.prisma,
    bulk: db.bulk,
    query: db.query,
    catalogue: new ProviderCatalogue(upstream, 600_000),
    client: upstream,
    limits: { maxRows: 10_000_000, maxBytes: 2 ** 30 },
    cardData: new CardDataVault(new DataKeyring(dataKeyFrom(BENCH_DATA_KEY)), 30),
    logger,
  });
}

async function timedImport(target: BatchImporter, file: string, rows: number): Promise<ImportRun> {
  const started = performance.now();
  const batch = await target.import({ source: createReadStream(file, { highWaterMark: 64 * 1024 }), force: true });
  const seconds = (performance.now() - started) / 1000;
  if (batch.rowCount !== rows) throw new Error(`imported ${batch.rowCount} rows of ${rows}`);
  return { rows, seconds, status: batch.status, peakRss: peakRss() };
}

/** csv-parse alone on the same file: the reference the import is held to. */
async function csvParseSeconds(file: string): Promise<number> {
  const started = performance.now();
  let records = 0;
  for await (const _record of createReadStream(file, { highWaterMark: 64 * 1024 }).pipe(parse())) records++;
  if (records === 0) throw new Error('csv-parse read nothing');
  return (performance.now() - started) / 1000;
}

function peakRss(): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? process.memoryUsage().rss : Number(match[1]) * 1024;
}

function generate(dir: string, rows: number): string {
  const file = join(dir, `payroll-${rows}.csv`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'samples/generate-payroll.ts', '--rows', String(rows), '--out', file], {
    stdio: 'ignore',
  });
  if (result.status !== 0) throw new Error(`generating ${rows} rows failed`);
  return file;
}

async function withPostgres<T>(adminUrl: string, use: (url: string) => Promise<T>): Promise<T> {
  const name = `payout_bench_import_${randomBytes(4).toString('hex')}`;
  const admin = (sql: string) => adminQuery(adminUrl, sql);
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await use(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

/** The 1M-row import in a process of its own, so its peak resident memory is the import's. */
async function childMain(): Promise<void> {
  const db = await openDatabase({ databaseUrl: values.database! });
  try {
    const rows = Number(values.big);
    const run = await timedImport(importer(db, client(values.sandbox!, values.keys!)), values.file!, rows);
    process.stdout.write(`${JSON.stringify(run)}\n`);
  } finally {
    await db.close();
  }
}

/**
 * This script bundled as the gateway is (scripts/build.mjs: esbuild, dependencies external),
 * so the child's memory is the import's and the app's, not tsx's compiler (about 35 MB).
 * Written under node_modules/.cache so the bundle resolves the dependencies.
 */
async function bundledChild(): Promise<string> {
  const outfile = join('node_modules', '.cache', 'payout-bench', 'import-child.mjs');
  await build({
    entryPoints: ['bench/import.ts'],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
}

function childImport(
  script: string,
  file: string,
  databaseUrl: string,
  sandboxUrl: string,
  keysDir: string,
  rows: number,
): Promise<ImportRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [script, '--child', '--big', String(rows), '--file', file, '--database', databaseUrl, '--sandbox', sandboxUrl, '--keys', keysDir],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_REPORT_FILE: '' } },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the 1M-row child exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as ImportRun);
    });
  });
}

const MB = 1e6;

/** Prints the process's VmHWM on exit, to stderr, for a child this bench cannot read after it ends. */
const PEAK_ON_EXIT = `data:text/javascript,${encodeURIComponent(
  "import{readFileSync as r}from'node:fs';process.on('exit',()=>process.stderr.write('VmHWM '+/VmHWM:\\s+(\\d+)/.exec(r('/proc/self/status','utf8'))[1]+'\\n'))",
)}`;

/** `payout batch run FILE --yes --force` on dist/, as an operator: the CLI validates, uploads to the API it serves, the gateway imports. */
function cliRun(file: string, databaseUrl: string, dir: string): Promise<{ seconds: number; peakRss: number; output: string }> {
  const key = randomBytes(32).toString('hex');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: join(dir, 'cli-data'),
    // No gateway of someone else's on this machine's default port: the CLI serves the API itself.
    PORT: '1',
    HOST: '127.0.0.1',
    GATEWAY_API_KEYS: `bench:operator:${key}`,
    PAYOUT_CLI_KEY: key,
    LOG_LEVEL: 'error',
    BENCH_REPORT_FILE: '',
  };
  delete env.PAYOUT_GATEWAY_URL;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', PEAK_ON_EXIT, 'dist/payout.js', 'batch', 'run', file, '--yes', '--force'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const peak = /VmHWM (\d+)/.exec(errors);
      if (code !== 0 || peak === null) return reject(new Error(`payout batch run exited ${code}: ${errors.slice(-500)}`));
      resolve({ seconds, peakRss: Number(peak[1]) * 1024, output });
    });
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-import-'));
  const sizes = [1_000, Number(values.rows)];
  const big = Number(values.big);
  const files = new Map([...sizes, big].map((rows) => [rows, generate(dir, rows)]));
  const keysDir = join(dir, 'keys');
  const sandbox = createSandbox({
    agentId: 'bench',
    apiToken: 'bench-token',
    publicKeyPem: readFileSync(ensureDevKeyPair(keysDir).publicKeyFile, 'utf8'),
    webhookSecret: 'bench-secret',
    balance: '999999999999.00',
  });
  const sandboxUrl = await sandbox.listen();
  const upstream = client(sandboxUrl, keysDir);
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    console.log(line);
  };
  try {
    const kinds: Array<'postgresql' | 'pglite'> = values['no-pglite'] ? ['postgresql'] : ['postgresql', 'pglite'];
    for (const kind of kinds) {
      const measure = async (db: Database) => {
        await db.migrate();
        const target = importer(db, upstream);
        // The first import loads and compiles what every import uses; it is not measured.
        await timedImport(target, files.get(1_000)!, 1_000);
        for (const rows of sizes) {
          const file = files.get(rows)!;
          const parseSeconds = await csvParseSeconds(file);
          const run = await timedImport(target, file, rows);
          const rate = rows / run.seconds;
          const ratio = run.seconds / parseSeconds;
          const perRow = (run.seconds * 1e6) / rows;
          const detail = `${kind}, ${rows.toLocaleString('en-US')} rows (${(statSync(file).size / MB).toFixed(1)} MB); csv-parse alone ${parseSeconds.toFixed(2)} s`;
          say(
            `${kind} ${rows} rows: ${run.seconds.toFixed(2)} s, ${Math.round(rate)} rows/s (target ≥ 25000 on PostgreSQL at 100k), ` +
              `${ratio.toFixed(1)}× csv-parse (target ≤ 6), ${perRow.toFixed(1)} µs/row, status ${run.status}, load ${load()}`,
          );
          report({
            bench: 'import',
            name: `µs per row, ${rows.toLocaleString('en-US')} rows`,
            value: Number(perRow.toFixed(1)),
            unit: 'µs',
            target: 'flat 1k → 100k → 1M',
            detail,
          });
          if (rows === Number(values.rows)) {
            const onPostgres = kind === 'postgresql';
            report({
              bench: 'import',
              name: 'rows per second',
              value: Math.round(rate),
              unit: 'rows/s',
              target: onPostgres ? '≥ 25000' : '—',
              ...(onPostgres ? { met: rate >= 25_000 } : {}),
              detail,
            });
            report({
              bench: 'import',
              name: 'time ÷ csv-parse alone',
              value: Number(ratio.toFixed(1)),
              unit: '×',
              target: onPostgres ? '≤ 6' : '—',
              ...(onPostgres ? { met: ratio <= 6 } : {}),
              detail,
            });
          }
        }
      };
      if (kind === 'postgresql') {
        await withPostgres(values['admin-url']!, async (url) => {
          const db = await openDatabase({ databaseUrl: url });
          try {
            await measure(db);
          } finally {
            await db.close();
          }
          const file = files.get(big)!;
          const parseSeconds = await csvParseSeconds(file);
          const run = await childImport(await bundledChild(), file, url, sandboxUrl, keysDir, big);
          const perRow = (run.seconds * 1e6) / big;
          const detail = `postgresql, ${big.toLocaleString('en-US')} rows (${(statSync(file).size / MB).toFixed(0)} MB) in a child process (bundled, as dist/ runs); csv-parse alone ${parseSeconds.toFixed(2)} s`;
          say(
            `postgresql ${big} rows (child process): ${run.seconds.toFixed(1)} s, ${Math.round(big / run.seconds)} rows/s, ` +
              `${(run.seconds / parseSeconds).toFixed(1)}× csv-parse, ${perRow.toFixed(1)} µs/row, peak RSS ${(run.peakRss / MB).toFixed(0)} MB (target < 300), status ${run.status}, load ${load()}`,
          );
          report({
            bench: 'import',
            name: `µs per row, ${big.toLocaleString('en-US')} rows`,
            value: Number(perRow.toFixed(1)),
            unit: 'µs',
            target: 'flat 1k → 100k → 1M',
            detail,
          });
          const rows = Number(values.rows);
          const runFile = files.get(rows)!;
          const runParse = await csvParseSeconds(runFile);
          const cli = await cliRun(runFile, url, dir);
          if (!cli.output.includes(`${rows.toLocaleString('en-US')} rows`)) throw new Error(`payout batch run said: ${cli.output}`);
          const cliRate = rows / cli.seconds;
          const cliRatio = cli.seconds / runParse;
          const cliDetail = `postgresql, ${rows.toLocaleString('en-US')} rows; dist/payout.js serving the API itself, operator key (imports, does not pay); csv-parse alone ${runParse.toFixed(2)} s`;
          say(
            `payout batch run ${rows} rows: ${cli.seconds.toFixed(2)} s, ${Math.round(cliRate)} rows/s (target ≥ 25000), ${cliRatio.toFixed(1)}× csv-parse (target ≤ 6), ` +
              `peak RSS ${(cli.peakRss / MB).toFixed(0)} MB, load ${load()}`,
          );
          report({
            bench: 'import',
            name: 'payout batch run, rows per second',
            value: Math.round(cliRate),
            unit: 'rows/s',
            target: '≥ 25000',
            met: cliRate >= 25_000,
            detail: cliDetail,
          });
          report({
            bench: 'import',
            name: 'payout batch run ÷ csv-parse alone',
            value: Number(cliRatio.toFixed(1)),
            unit: '×',
            target: '≤ 6',
            met: cliRatio <= 6,
            detail: cliDetail,
          });
          report({
            bench: 'import',
            name: 'payout batch run, peak RSS',
            value: Math.round(cli.peakRss / MB),
            unit: 'MB',
            target: '—',
            detail: cliDetail,
          });
          report({
            bench: 'import',
            name: `peak RSS importing ${big.toLocaleString('en-US')} rows`,
            value: Math.round(run.peakRss / MB),
            unit: 'MB',
            target: '< 300',
            met: run.peakRss < 300 * MB,
            detail,
          });
        });
      } else {
        const db = await openDatabase({ dataDir: undefined });
        try {
          await measure(db);
        } finally {
          await db.close();
        }
      }
    }
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await (values.child ? childMain() : main());

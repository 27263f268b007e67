import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Figure } from './report.ts';

/**
 * `npm run bench`: every benchmark of the project in one go, each in a process of its own,
 * then one table of every figure beside its target, written into docs/internals/benchmarks/README.md
 * between the generated-section markers (the prose around them is kept).
 *
 *   npm run bench [-- --only pay,import] [--no-write]
 */
const BENCHES: Array<{ name: string; file: string; args: string[] }> = [
  { name: 'startup', file: 'bench/startup.ts', args: [] },
  { name: 'facade', file: 'bench/facade.ts', args: [] },
  { name: 'persisted', file: 'bench/persisted.ts', args: [] },
  { name: 'default', file: 'bench/default-config.ts', args: [] },
  { name: 'import', file: 'bench/import.ts', args: [] },
  { name: 'pay', file: 'bench/pay.ts', args: ['--rows', '2000', '--concurrency', '32'] },
  { name: 'reconcile', file: 'bench/reconcile.ts', args: [] },
  { name: 'auth', file: 'bench/auth.ts', args: [] },
  { name: 'scale', file: 'bench/scale-out.ts', args: [] },
  { name: 'wake', file: 'bench/wake.ts', args: [] },
];
const DOC = 'docs/internals/benchmarks/README.md';
const START = '<!-- bench:results:start (written by npm run bench) -->';
const END = '<!-- bench:results:end -->';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const only = values.only?.split(',').map((s) => s.trim());

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payout-bench-all-'));
  const reportFile = join(dir, 'figures.ndjson');
  writeFileSync(reportFile, '');
  const loadBefore = loadavg();
  const started = Date.now();
  const failed: string[] = [];
  try {
    for (const bench of BENCHES) {
      if (only !== undefined && !only.includes(bench.name)) continue;
      if (!existsSync(bench.file)) {
        console.log(`\n== ${bench.name}: ${bench.file} is missing, skipped`);
        failed.push(`${bench.name} (missing)`);
        continue;
      }
      console.log(`\n== ${bench.name} (${bench.file} ${bench.args.join(' ')})`);
      const code = await run(bench.file, bench.args, reportFile);
      if (code !== 0) failed.push(`${bench.name} (exit ${code})`);
    }
    const figures = readFileSync(reportFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Figure);
    const minutes = (Date.now() - started) / 60_000;
    const section = await render(figures, { loadBefore, loadAfter: loadavg(), minutes, failed });
    console.log(`\n${section}`);
    if (!values['no-write']) {
      writeSection(section);
      console.log(`\nwritten to ${DOC}`);
    }
    if (failed.length > 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(file: string, args: string[], reportFile: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
      env: { ...process.env, BENCH_REPORT_FILE: reportFile },
      stdio: 'inherit',
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

async function render(
  figures: Figure[],
  run: { loadBefore: number[]; loadAfter: number[]; minutes: number; failed: string[] },
): Promise<string> {
  const cpu = cpus();
  const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(' ');
  const met = figures.filter((f) => f.met === true).length;
  const targeted = figures.filter((f) => f.met !== undefined).length;
  const lines = [
    START,
    `Last \`npm run bench\`: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
      `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
      `Node ${process.versions.node}, ${await postgresVersion()}. ` +
      `Load average ${load(run.loadBefore)} before, ${load(run.loadAfter)} after; ${run.minutes.toFixed(1)} minutes in all. ` +
      `${met} of ${targeted} targets met.` +
      (run.failed.length > 0 ? ` Not run or failed: ${run.failed.join(', ')}.` : ''),
    '',
    '| Bench | Figure | Value | Target | Met | Conditions | Load |',
    '|---|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.bench} | ${f.name} | ${format(f.value)}${f.unit === '' ? '' : ` ${f.unit}`} | ${f.target} | ${f.met === undefined ? '—' : f.met ? 'yes' : '**no**'} | ${f.detail ?? ''} | ${f.load.toFixed(2)} |`,
    ),
    END,
  ];
  return lines.join('\n');
}

function format(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return value.toLocaleString('en-US', { maximumFractionDigits: value < 10 ? 2 : 1 });
}

async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  try {
    await client.connect();
    const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return `PostgreSQL ${rows[0]?.v.split(' ')[0]}`;
  } catch {
    return 'PostgreSQL not reachable';
  } finally {
    await client.end().catch(() => undefined);
  }
}

function writeSection(section: string): void {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${doc.slice(0, start)}${section}${doc.slice(end + END.length)}`
      : doc.replace(/\n## /, `\n## Latest figures\n\n${section}\n\n## `);
  writeFileSync(DOC, next);
}

await main();

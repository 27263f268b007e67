import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { report } from './report.ts';

/**
 * Start-up where users wait (issue 9, target 4): `npm start` until /healthz answers 200 on
 * a migrated database, `payout --help`, and `payout batch validate` of a 10-row file. Each
 * is the best of N runs, in a fresh temp DATA_DIR migrated once first, with its CPU time
 * and peak RSS, and as a ratio to a bare `node -e ""` measured in the same run. The built
 * dist/ is what runs (built first from the current source), as `npm start` and `npx
 * payout` run it.
 *
 *   npm run bench:startup [-- --runs 5]
 */
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number of at least 1');

const node = process.execPath;
const CLK_TCK = 100;

interface Sample {
  ms: number;
  cpuMs: number | undefined;
  rssMb: number | undefined;
}

/** utime + stime of a live process, from /proc (Linux); undefined elsewhere. */
function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return undefined;
  }
}

function peakRssMbOf(pid: number): number | undefined {
  try {
    const found = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return found === null ? undefined : Math.round(Number(found[1]) / 1024);
  } catch {
    return undefined;
  }
}

function baseEnv(dataDir: string): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'].flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]]));
  // Only what a new user has: no DATABASE_URL, no PAYOUT_API_URL, no .env (cwd is the repo, which has none in CI).
  return { ...Object.fromEntries(keep), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
}

/**
 * A command that ends by itself: wall time to exit. Its CPU and peak RSS come from
 * /usr/bin/time where it is installed (the process is gone before /proc could be read).
 */
async function timeCommand(command: string, args: string[], env: Record<string, string>): Promise<Sample> {
  const timer = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', '@@time %U %S %M', command, ...args] : [command, ...args];
  const started = performance.now();
  const child = spawn(timer[0]!, timer.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const ms = performance.now() - started;
  const found = /@@time ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
  if (code !== 0 && code !== 1) throw new Error(`${command} ${args.join(' ')} exited ${code}:\n${stderr}`);
  return {
    ms,
    cpuMs: found === null ? undefined : (Number(found[1]) + Number(found[2])) * 1000,
    rssMb: found === null ? undefined : Math.round(Number(found[3]) / 1024),
  };
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * The gateway as `npm start` runs it (or `npm start` itself): time until /healthz answers
 * 200, then until /readyz does; the CPU it used until healthy. Stopped with SIGTERM.
 */
async function timeGateway(viaNpm: boolean, dataDir: string): Promise<Sample & { readyMs: number }> {
  const port = await freePort();
  const env = { ...baseEnv(dataDir), PORT: String(port) };
  const started = performance.now();
  const child = viaNpm
    ? spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true })
    : spawn(node, ['--enable-source-maps', 'dist/main.js'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let exited = false;
  const done = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const base = `http://127.0.0.1:${port}`;
  while (!(await answers(`${base}/healthz`))) {
    if (exited) throw new Error(`the gateway exited before answering /healthz:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const ms = performance.now() - started;
  // Under npm the gateway is a grandchild: its CPU is not the npm process's.
  const cpuMs = viaNpm ? undefined : cpuMsOf(child.pid!);
  const rssMb = viaNpm ? undefined : peakRssMbOf(child.pid!);
  while (!(await answers(`${base}/readyz`))) await new Promise((resolve) => setTimeout(resolve, 5));
  const readyMs = performance.now() - started;
  if (viaNpm) process.kill(-child.pid!, 'SIGTERM');
  else child.kill('SIGTERM');
  await done;
  return { ms, readyMs, cpuMs, rssMb };
}

/** dist/ is JavaScript only, and every command users run starts from it: no TypeScript compiled at run time. */
function noTypeScriptAtRunTime(): { holds: boolean; why: string } {
  const files = ['dist', 'dist/chunks'].flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => join(dir, f)),
  );
  const importsTs = files.filter((file) => /(from|import)\s*\(?\s*["'][^"']+\.tsx?["']/.test(readFileSync(file, 'utf8')));
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  const runtime = ['start', 'worker', 'sandbox', 'db:migrate', 'payout'].filter(
    (name) => !/^(exec )?node (--\S+ )*dist\//.test(scripts[name] ?? ''),
  );
  const bin = readFileSync('bin/payout.js', 'utf8');
  const problems = [
    ...importsTs.map((file) => `${file} imports a .ts file`),
    ...runtime.map((name) => `npm run ${name} does not run dist/ with node`),
    ...(bin.includes("import('../dist/payout.js')") ? [] : ['bin/payout.js does not run dist/payout.js']),
  ];
  return {
    holds: problems.length === 0,
    why:
      problems.length === 0
        ? `${files.length} built files, no .ts import; start, worker, sandbox, db:migrate, payout and bin/payout.js run dist/`
        : problems.join('; '),
  };
}

const best = (samples: Sample[]) => samples.reduce((a, b) => (b.ms < a.ms ? b : a));
const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)]!;

async function main(): Promise<void> {
  execFileSync(node, ['scripts/build.mjs'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'payout-bench-startup-'));
  const loadBefore = loadavg()[0]!;
  try {
    // Migrated once first (and keys, the data key and the sandbox state made): every timed start finds them.
    const first = await timeGateway(false, dataDir);
    console.log(
      `first start (migrations applied): /healthz after ${Math.round(first.ms)} ms, /readyz after ${Math.round(first.readyMs)} ms`,
    );

    const floor: Sample[] = [];
    const gateway: Array<Sample & { readyMs: number }> = [];
    const npmStart: Array<Sample & { readyMs: number }> = [];
    const help: Sample[] = [];
    const validate: Sample[] = [];
    const env = baseEnv(dataDir);
    // Interleaved, so a change of load during the run weighs on every figure alike.
    for (let run = 0; run < runs; run++) {
      floor.push(await timeCommand(node, ['-e', ''], env));
      gateway.push(await timeGateway(false, dataDir));
      npmStart.push(await timeGateway(true, dataDir));
      help.push(await timeCommand(node, ['bin/payout.js', '--help'], env));
      validate.push(await timeCommand(node, ['bin/payout.js', 'batch', 'validate', 'samples/payroll-valid.csv'], env));
    }
    const loadAfter = loadavg()[0]!;
    const nodeFloor = best(floor).ms;
    const rows = [
      { name: '`npm start` to /healthz 200 (migrated database)', samples: npmStart, targetMs: 2000 },
      { name: '`node dist/main.js` (what npm start runs) to /healthz 200', samples: gateway, targetMs: 2000 },
      { name: '`payout --help`', samples: help, targetMs: 500 },
      { name: '`payout batch validate` of a 10-row file', samples: validate, targetMs: 1500 },
    ];
    console.log(
      `\nbest of ${runs}, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after; bare \`node -e ""\`: ${Math.round(nodeFloor)} ms`,
    );
    console.log(['figure', 'best ms', 'median ms', 'target ms', 'met', '× node', 'CPU ms', 'peak RSS MB'].join(' | '));
    for (const row of rows) {
      const top = best(row.samples);
      const met = top.ms < row.targetMs;
      console.log(
        [
          row.name,
          Math.round(top.ms),
          Math.round(median(row.samples.map((s) => s.ms))),
          `< ${row.targetMs}`,
          met ? 'yes' : 'NO',
          (top.ms / nodeFloor).toFixed(1),
          top.cpuMs === undefined ? '—' : Math.round(top.cpuMs),
          top.rssMb ?? '—',
        ].join(' | '),
      );
      report({
        bench: 'startup',
        name: row.name,
        value: Math.round(top.ms),
        unit: 'ms',
        target: `< ${row.targetMs}`,
        met,
        detail: `best of ${runs}, median ${Math.round(median(row.samples.map((s) => s.ms)))} ms, ${(top.ms / nodeFloor).toFixed(1)}× a bare node start${top.cpuMs === undefined ? '' : `, CPU ${Math.round(top.cpuMs)} ms`}${top.rssMb === undefined ? '' : `, peak RSS ${top.rssMb} MB`}`,
      });
    }
    const ready = best(gateway.map((g) => ({ ...g, ms: g.readyMs })));
    console.log(`/readyz 200 (database open, migrations checked, upstream answering): best ${Math.round(ready.ms)} ms`);
    report({
      bench: 'startup',
      name: '`node dist/main.js` to /readyz 200',
      value: Math.round(ready.ms),
      unit: 'ms',
      target: '—',
      detail: `best of ${runs}`,
    });
    const check = noTypeScriptAtRunTime();
    console.log(`no TypeScript compiled at run time: ${check.holds ? 'holds' : 'BROKEN'} (${check.why})`);
    report({
      bench: 'startup',
      name: 'No TypeScript compiled at run time',
      value: check.holds ? 1 : 0,
      unit: 'holds (1) / broken (0)',
      target: '1',
      met: check.holds,
      detail: check.why,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

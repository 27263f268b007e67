import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { seedDataDir } from './database-template.ts';
import { freePort } from './gateway-process.ts';
import { nodeEnv } from './processes.ts';

const bin = new URL('../../bin/payout.js', import.meta.url).pathname;

/** Per process started: a hung run only; nothing here depends on time. */
export const budget = (starts: number) => Math.max(180_000, starts * 60_000);

/** The test process's whole environment, for a CLI that runs as from the developer's shell. */
export function shellEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]])));
}

export type PayoutResult = { code: number | null; stdout: string; stderr: string };

/**
 * `payout` (bin/payout.js, the built dist/) in its own process with only the given
 * environment plus what Node needs (`nodeEnv`). Started, not awaited: `output` grows as it
 * writes, `done` resolves when it has closed, `running()` says whether it still runs.
 */
export function startPayout(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...nodeEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited = false;
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const done = new Promise<PayoutResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      exited = true;
      resolve({ code, ...output });
    });
  });
  return { child, output, done, running: () => !exited };
}

/**
 * `payout` as a user runs it: its own process, the built dist/, the embedded database and
 * sandbox in a fresh DATA_DIR, removed afterwards with any process left. `defaults` is
 * environment every run gets (a run's own env wins); `per: 'file'` keeps one DATA_DIR for
 * all the tests of the file or describe block it is called in, for tests that build on the
 * one before.
 */
export function cliInFreshDataDir(
  prefix: string,
  { defaults = {}, per = 'test' }: { defaults?: Record<string, string>; per?: 'test' | 'file' } = {},
) {
  let dataDir = '';
  // A port of its own where no gateway answers: the CLI, a client of the gateway at PORT
  // (docs/decisions/0020-the-cli-is-a-client.md), never reaches another test's or a developer's.
  let port = '';
  const running = new Set<ChildProcess>();
  (per === 'test' ? beforeEach : beforeAll)(async () => {
    dataDir = await mkdtemp(join(tmpdir(), prefix));
    await seedDataDir(dataDir);
    port = String(await freePort());
  });
  (per === 'test' ? afterEach : afterAll)(async () => {
    for (const child of running) child.kill('SIGKILL');
    await Promise.all([...running].map((child) => new Promise((resolve) => child.once('close', resolve))));
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Started, not awaited: for a test that acts on it while it runs (a signal); `stderr` grows as it writes. */
  function start(args: string[], env: Record<string, string> = {}) {
    const started = startPayout(args, {
      ...shellEnv(),
      DATA_DIR: dataDir,
      PORT: port,
      PAYOUT_GATEWAY_URL: '',
      DATABASE_URL: '',
      PAYOUT_API_URL: '',
      GATEWAY_API_KEYS: '',
      ...defaults,
      ...env,
    });
    running.add(started.child);
    started.child.on('close', () => running.delete(started.child));
    return started;
  }

  function payout(args: string[], env: Record<string, string> = {}): Promise<PayoutResult> {
    return start(args, env).done;
  }

  /** The embedded database, opened while no CLI runs (one process at a time holds it). */
  async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const db = await openDatabase({ dataDir });
    try {
      await db.migrate();
      return await work(db);
    } finally {
      await db.close();
    }
  }

  return { payout, start, withDatabase, dataDir: () => dataDir, port: () => port };
}

/**
 * The state a `batch run` leaves when two of its failed rows were put back to be paid again
 * (attempt 2, new paymentIds) and it was then interrupted: the batch RUNNING with rows to pay.
 */
export async function interruptedRetryOfTwoFailedRows({ prisma }: Database): Promise<{ batchId: string; lines: number[] }> {
  const batch = await prisma.batch.findFirstOrThrow();
  const failed = await prisma.batchItem.findMany({ where: { batchId: batch.id, status: 'FAILED' }, orderBy: { line: 'asc' }, take: 2 });
  await prisma.batch.update({ where: { id: batch.id }, data: { status: 'RUNNING', finishedAt: null } });
  for (const row of failed) {
    await prisma.batchItem.update({
      where: { id: row.id },
      data: {
        status: 'PENDING',
        attempt: 2,
        paymentId: `${batch.id}-${row.line}-r2`,
        finishedAt: null,
        errorCode: null,
        errorMessage: null,
      },
    });
  }
  return { batchId: batch.id, lines: failed.map((row) => row.line) };
}

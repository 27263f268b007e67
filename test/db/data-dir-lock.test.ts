import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, openDatabase } from '../../src/db/database.ts';

const repo = new URL('../../', import.meta.url).pathname;
const databaseModule = new URL('../../src/db/database.ts', import.meta.url).href;

/** A real second process running `script` (ESM, with `openDatabase` and `dir` in scope). */
function node(script: string, dir: string, env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  const source = `const { openDatabase } = await import(${JSON.stringify(databaseModule)}); const dir = ${JSON.stringify(dir)};\n${script}`;
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
    cwd: repo,
    env: { ...process.env, npm_lifecycle_event: '', ...env },
  });
}

/** Everything a process writes to stdout, and a way to wait for a given line. */
function output(child: ChildProcessWithoutNullStreams) {
  let text = '';
  let errors = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    get text() {
      return text;
    },
    get errors() {
      return errors;
    },
    exited,
    async line(expected: string): Promise<void> {
      let gone = false;
      void exited.then(() => {
        gone = true;
        for (const wake of waiters.splice(0)) wake();
      });
      while (!text.split('\n').includes(expected)) {
        if (gone) throw new Error(`process exited before printing "${expected}": ${text}${errors}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

const holderScript = `
const db = await openDatabase({ dataDir: dir });
await db.prisma.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS kept (v text)');
await db.prisma.$executeRawUnsafe("INSERT INTO kept VALUES ('first process')");
console.log('ready');
for await (const _ of process.stdin) break;
console.log(JSON.stringify(await db.prisma.$queryRawUnsafe('SELECT v FROM kept')));
await db.close();
console.log('closed');
`;

const secondScript = `
try {
  const db = await openDatabase({ dataDir: dir });
  console.log('opened');
  await db.close();
} catch (error) {
  console.log('refused: ' + error.message);
  process.exitCode = 3;
}
`;

describe('embedded database lock', () => {
  // One directory for all: making a new PGlite database costs seconds, and every test
  // leaves the lock released.
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payout-lock-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a second process at once, naming the holder, and leaves the first one’s data intact', async () => {
    const first = node(holderScript, dir, { npm_lifecycle_event: 'start' });
    const firstOut = output(first);
    await firstOut.line('ready');

    const second = output(node(secondScript, dir));
    expect(await second.exited).toBe(3);
    expect(second.text).toMatch(
      new RegExp(
        `^refused: the embedded database in ${dir} is in use by pid ${first.pid} \\(npm start, since \\d{4}-\\d\\d-\\d\\dT[^)]+\\); the payout CLI acts through its gateway \\(PAYOUT_GATEWAY_URL\\); several processes on one database need DATABASE_URL$`,
        'm',
      ),
    );

    first.stdin.end('go\n');
    expect(await firstOut.exited).toBe(0);
    expect(firstOut.text).toContain('[{"v":"first process"}]');
    expect(existsSync(join(dir, 'pglite.lock'))).toBe(false);

    const db = await openDatabase({ dataDir: dir });
    try {
      expect(await db.prisma.$queryRawUnsafe('SELECT v FROM kept')).toEqual([{ v: 'first process' }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('lets the lock go when the process exits without closing', async () => {
    const child = output(node(`await openDatabase({ dataDir: dir }); console.log('opened'); process.exit(0);`, dir));
    expect(await child.exited).toBe(0);
    expect(child.text).toContain('opened');
    expect(existsSync(join(dir, 'pglite.lock'))).toBe(false);
  }, 120_000);

  it('takes over the lock of a process that no longer runs', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    writeFileSync(
      join(dir, 'pglite.lock'),
      `${JSON.stringify({ pid: gone.pid, command: 'npm start', startedAt: '2026-11-01T00:00:00.000Z' })}\n`,
    );
    const db = await openDatabase({ dataDir: dir });
    try {
      expect(JSON.parse(readFileSync(join(dir, 'pglite.lock'), 'utf8'))).toMatchObject({ pid: process.pid });
    } finally {
      await db.close();
    }
    expect(existsSync(join(dir, 'pglite.lock'))).toBe(false);
  }, 60_000);

  it('takes over a lock left with this process’s own pid by an earlier life (a restarted container)', async () => {
    writeFileSync(
      join(dir, 'pglite.lock'),
      `${JSON.stringify({ pid: process.pid, command: 'npm start', startedAt: '2026-11-01T00:00:00.000Z' })}\n`,
    );
    const db = await openDatabase({ dataDir: dir });
    await db.close();
  }, 60_000);

  it('refuses a second open in the same process', async () => {
    const db = await openDatabase({ dataDir: dir });
    try {
      const refused = await openDatabase({ dataDir: dir }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DataDirInUseError);
      expect((refused as DataDirInUseError).holder.pid).toBe(process.pid);
    } finally {
      await db.close();
    }
  }, 60_000);
});

import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { GatewayError } from '../lib/gateway-error.ts';

/** Who holds the embedded database, as written in its lock file. */
export interface LockHolder {
  pid: number;
  command: string;
  startedAt: string;
  /** The process's start time in clock ticks since boot (Linux): tells a reused pid from the holder. */
  startTicks?: string;
}

/** A second process tried to open an embedded database another one has open. */
export class DataDirInUseError extends GatewayError {
  readonly code = 'database.in-use';
  readonly kind = 'conflict';

  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the embedded database in ${dir} is in use by pid ${holder.pid} (${holder.command}, since ${holder.startedAt}); ` +
        // Never "stop it": the holder may be the gateway paying today's payroll. The CLI reaches
        // it through its API (src/process/gateway-address.ts); other processes need a server.
        'the payout CLI acts through its gateway (PAYOUT_GATEWAY_URL); several processes on one database need DATABASE_URL',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Idempotent; also runs when the process exits. */
  release(): void;
}

export const LOCK_FILE = 'pglite.lock';

/** Lock files this process holds: a second open of the same directory here is refused too. */
const held = new Set<string>();

/**
 * PGlite has no locking of its own: two processes on one data directory corrupt it. The
 * lock is a file made with link(2), which fails when the name exists, so it appears
 * whole or not at all; a lock whose process no longer runs (killed, machine restarted) is
 * taken over.
 */
export function lockDataDir(dir: string): DataDirLock {
  const absolute = resolve(dir);
  mkdirSync(absolute, { recursive: true });
  const path = join(absolute, LOCK_FILE);
  const mine: LockHolder = {
    pid: process.pid,
    command: describeCommand(),
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    ...optional('startTicks', processStartTicks(process.pid)),
  };
  const text = `${JSON.stringify(mine)}\n`;
  // A handful of rounds covers losing a race for a stale lock to another process.
  for (let round = 0; round < 5; round++) {
    if (tryCreate(path, text)) return holdLock(path, text);
    const found = readLock(path);
    if (found === undefined) continue;
    if (found.holder !== undefined && isRunning(found.holder, path)) throw new DataDirInUseError(absolute, found.holder);
    takeOverStale(path, found.text);
  }
  throw new Error(`could not take the lock ${path}: other processes keep replacing it`);
}

/**
 * The process that holds the embedded database in `dir` now, or undefined when none does (no
 * lock, or one a dead process left). Read without taking anything: the CLI asks before it
 * loads the gateway, to find the holder's gateway or say who holds it (issue 38).
 */
export function dataDirHolder(dir: string): LockHolder | undefined {
  const path = join(resolve(dir), LOCK_FILE);
  const found = readLock(path);
  return found?.holder !== undefined && isRunning(found.holder, path) ? found.holder : undefined;
}

function tryCreate(path: string, text: string): boolean {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, text, { mode: 0o644 });
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temp);
  }
}

function holdLock(path: string, text: string): DataDirLock {
  held.add(path);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    held.delete(path);
    process.removeListener('exit', release);
    // Only our own lock: after a takeover by mistake, the file would be someone else's.
    if (readLock(path)?.text === text) unlinkQuietly(path);
  };
  process.on('exit', release);
  return { path, release };
}

/** undefined when the file is gone (released meanwhile); holder undefined when unreadable. */
function readLock(path: string): { text: string; holder: LockHolder | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return { text, holder: undefined };
    return {
      text,
      holder: {
        pid: parsed.pid,
        command: typeof parsed.command === 'string' ? parsed.command : 'unknown command',
        startedAt: typeof parsed.startedAt === 'string' ? parsed.startedAt : 'an unknown time',
        ...optional('startTicks', typeof parsed.startTicks === 'string' ? parsed.startTicks : undefined),
      },
    };
  } catch {
    return { text, holder: undefined };
  }
}

function isRunning(holder: LockHolder, path: string): boolean {
  // Our own pid in a lock we do not hold: written by an earlier life of this pid (a container restarted).
  if (holder.pid === process.pid) return held.has(path);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (holder.startTicks === undefined) return true;
  const ticks = processStartTicks(holder.pid);
  return ticks === undefined || ticks === holder.startTicks;
}

/**
 * Moves the stale lock aside before deleting it: a plain unlink could delete a fresh lock
 * another process made after we read the stale one. If what was moved is not what we
 * judged stale, it goes back.
 */
function takeOverStale(path: string, staleText: string): void {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  let moved: string | undefined;
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    moved = undefined;
  }
  if (moved !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone made a new lock meanwhile: theirs stands.
    }
  }
  unlinkQuietly(aside);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** Field 22 of /proc/<pid>/stat; undefined where there is no /proc. */
function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after it are plain.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** What a person would recognise: `npm start`, `payout batch run pay.csv`, `main.ts`. */
function describeCommand(): string {
  const event = process.env.npm_lifecycle_event;
  if (event !== undefined && event !== '') return event === 'start' || event === 'test' ? `npm ${event}` : `npm run ${event}`;
  const script = process.argv[1];
  const words = script === undefined ? [basename(process.argv0)] : [basename(script), ...process.argv.slice(2)];
  const text = words.join(' ');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_DATA_KEY } from './card-data.ts';
import { testPrivateKeyFile } from './keys.ts';
import { AGENT, TOKEN, WEBHOOK_SECRET } from './sandbox.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Lines kept per process: enough to show why it died, bounded for 10,000-row runs. */
const TAIL_LINES = 400;

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A batch worker in a real process (`npm run worker`), as production runs it. The test
 * learns the worker's lease owner name from its start-up log line, so it can watch that
 * worker's leases in the database.
 */
export class WorkerProcess {
  readonly pid: number;
  readonly exited: Promise<ExitStatus>;
  /** Set when the test sent the signal that ended it; any other exit is a finding. */
  killedByTest = false;
  stopped = false;
  private status: ExitStatus | undefined;
  private ownerName: string | undefined;
  private readonly tail: string[] = [];

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    this.pid = child.pid!;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.status = { code, signal };
        resolve(this.status);
      });
    });
    collectLines(child.stdout!, (line) => this.onLine(line));
    collectLines(child.stderr!, (line) => this.keep(`stderr: ${line}`));
  }

  /** The leaseOwner this worker writes, once it has said it runs. */
  get owner(): string | undefined {
    return this.ownerName;
  }

  get alive(): boolean {
    return this.status === undefined;
  }

  get exitStatus(): ExitStatus | undefined {
    return this.status;
  }

  signal(signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT' | 'SIGTERM'): void {
    if (!this.alive) return;
    if (signal === 'SIGKILL' || signal === 'SIGTERM') this.killedByTest = true;
    this.stopped = signal === 'SIGSTOP';
    this.child.kill(signal);
  }

  async kill(): Promise<ExitStatus> {
    this.signal('SIGKILL');
    return this.exited;
  }

  logTail(lines = 40): string {
    return this.tail.slice(-lines).join('\n');
  }

  /** Why it died: the start of what it wrote to stderr (a crash prints its error there first), else its last log lines. */
  crashReport(lines = 30): string {
    const stderr = this.tail.filter((line) => line.startsWith('stderr: '));
    return stderr.length > 0 ? stderr.slice(0, lines).join('\n') : this.logTail(lines);
  }

  describe(): string {
    const state = this.alive ? (this.stopped ? 'stopped' : 'running') : `exited ${JSON.stringify(this.status)}`;
    return `${this.name} pid ${this.pid} owner ${this.ownerName ?? '?'} ${state}`;
  }

  private onLine(line: string): void {
    this.keep(line);
    if (this.ownerName !== undefined || !line.includes('batch worker running')) return;
    try {
      const record = JSON.parse(line) as { worker?: unknown };
      if (typeof record.worker === 'string') this.ownerName = record.worker;
    } catch {
      // Not a JSON log line: the owner comes from a later one.
    }
  }

  private keep(line: string): void {
    this.tail.push(line);
    // Drop the oldest stdout line, so a crash's stderr (its cause) is kept to the end.
    if (this.tail.length > TAIL_LINES) {
      const oldest = this.tail.findIndex((kept) => !kept.startsWith('stderr: '));
      this.tail.splice(oldest >= 0 ? oldest : 0, 1);
    }
  }
}

/** Calls `onLine` for each complete, non-empty line of a child's output. */
/** What Node needs from the test process; a child gets this plus its own env, so nothing else (a .env, the developer's shell) leaks in. */
export function nodeEnv(): Record<string, string> {
  return Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'].flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]!]])),
  );
}

export function collectLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) if (line !== '') onLine(line);
  });
}

const running = new Set<WorkerProcess>();
let exitHookInstalled = false;

/**
 * Starts the built worker (`npm run worker`: dist/worker.js, built from the current source
 * by test/global-setup.ts) with only the given environment (plus what Node needs to run),
 * so nothing from the test process's environment or a .env leaks in.
 */
export function spawnWorker(name: string, env: Record<string, string>): WorkerProcess {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A test process that dies without its hooks must not leave workers paying on.
    process.once('exit', () => {
      for (const worker of running) if (worker.alive) process.kill(worker.pid, 'SIGKILL');
    });
  }
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/worker.js'], {
    cwd: repoRoot,
    env: { ...nodeEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const worker = new WorkerProcess(name, child);
  running.add(worker);
  void worker.exited.then(() => running.delete(worker));
  return worker;
}

/** SIGKILL (which also ends a stopped process) for every worker still running; waits for each. */
export async function killAllWorkers(): Promise<void> {
  await Promise.all([...running].map((worker) => worker.kill()));
}

/** What every gateway or worker process of a test needs: the database, the test sandbox as its upstream, the test keys. */
export function remoteEnv(databaseUrl: string, sandboxUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    PAYOUT_API_URL: sandboxUrl,
    PAYOUT_AGENT_ID: AGENT,
    PAYOUT_API_TOKEN: TOKEN,
    PAYOUT_PRIVATE_KEY_FILE: testPrivateKeyFile,
    PAYOUT_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PAYOUT_DATA_KEY: TEST_DATA_KEY,
  };
}

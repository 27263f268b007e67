import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { collectLines, nodeEnv } from './processes.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const TAIL_LINES = 2_000;

/**
 * A gateway in a real process (`npm start`: dist/main.js, built from the current source by
 * test/global-setup.ts) with only the given environment plus what Node needs, so nothing
 * from the test process or a .env leaks in. `ready` resolves with the URL the gateway logs
 * once it listens; it rejects if the process ends first.
 */
export class GatewayProcess {
  readonly pid: number;
  readonly ready: Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private running = true;
  /** Set when the test ended it; any other exit is a finding. */
  killedByTest = false;
  private readonly tail: string[] = [];

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    this.pid = child.pid!;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.running = false;
        resolve({ code, signal });
      }),
    );
    let listening: (url: string) => void = () => {};
    this.ready = new Promise<string>((resolve, reject) => {
      listening = resolve;
      void this.exited.then((status) => reject(new Error(`${name} exited ${JSON.stringify(status)} before listening:\n${this.logTail()}`)));
    });
    collectLines(child.stdout!, (line) => {
      this.keep(line);
      if (!line.includes('listening on')) return;
      try {
        const record = JSON.parse(line) as { url?: unknown };
        if (typeof record.url === 'string') listening(record.url);
      } catch {
        // Not a JSON log line.
      }
    });
    collectLines(child.stderr!, (line) => this.keep(`stderr: ${line}`));
  }

  /** `command` is what starts it: by default node on dist/main.js, or what a user types (`npm start`). */
  static spawn(
    name: string,
    env: Record<string, string>,
    command: string[] = [process.execPath, '--enable-source-maps', 'dist/main.js'],
    cwd = repoRoot,
  ): GatewayProcess {
    installExitHook();
    const child = spawn(command[0]!, command.slice(1), {
      cwd,
      env: { ...nodeEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const gateway = new GatewayProcess(name, child);
    running.add(gateway);
    void gateway.exited.then(() => running.delete(gateway));
    return gateway;
  }

  get alive(): boolean {
    return this.running;
  }

  logTail(lines = 40): string {
    return this.tail.slice(-lines).join('\n');
  }

  signal(signal: 'SIGTERM' | 'SIGINT'): void {
    this.killedByTest = true;
    if (this.running) this.child.kill(signal);
  }

  async kill(): Promise<void> {
    this.killedByTest = true;
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  private keep(line: string): void {
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }
}

const running = new Set<GatewayProcess>();
let hooked = false;
function installExitHook(): void {
  if (hooked) return;
  hooked = true;
  // A test process that dies without its hooks must not leave gateways running.
  process.once('exit', () => {
    for (const gateway of running) process.kill(gateway.pid, 'SIGKILL');
  });
}

export async function killAllGateways(): Promise<void> {
  await Promise.all([...running].map((gateway) => gateway.kill()));
}

/**
 * A loopback port free right now. A gateway's GATEWAY_PUBLIC_URL (its webhook address)
 * must be known before it starts, so it cannot take PORT=0.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

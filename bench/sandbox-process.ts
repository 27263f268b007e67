import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** `npm run sandbox` in a child process of a bench, on a free port, its CPU read from /proc. */
export interface SandboxProcess {
  url: string;
  process: ChildProcess;
  /** User plus system CPU so far, in microseconds. */
  cpuUs(): number;
}

export async function startSandboxProcess(env: Record<string, string>): Promise<SandboxProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], {
    env: { ...process.env, SANDBOX_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningUrl(child, 'the sandbox');
  return { url, process: child, cpuUs: () => processCpuUs(child.pid!) };
}

/**
 * The URL a server process logs once it listens (`"url":"http://…"` in its JSON log line on
 * stdout); the rest of its log is read and dropped, as a log shipper would.
 */
export async function listeningUrl(child: ChildProcess, name: string): Promise<string> {
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const match = /"url":"(http:\/\/[^"]+)"/.exec(buffer);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  child.stdout!.removeAllListeners('data');
  child.stdout!.resume();
  return url;
}

/** utime and stime of a process, in clock ticks (100 per second on Linux), as microseconds. */
export function processCpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

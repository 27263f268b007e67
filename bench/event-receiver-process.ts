import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export interface EventReceiverProcess {
  url: string;
  /** Events it verified and printed so far (reads its output file). */
  count(): number;
  waitFor(events: number): Promise<void>;
  close(): void;
}

/**
 * samples/event-receiver.mjs in a process of its own: it verifies each delivery and prints a
 * line per event into `outFile`, read only when counting, so a bench measuring its own
 * process's CPU does no per-event work for it.
 */
export async function startEventReceiverProcess(secret: string, outFile: string): Promise<EventReceiverProcess> {
  const out = openSync(outFile, 'w');
  const child = spawn(process.execPath, ['samples/event-receiver.mjs'], {
    env: { ...process.env, EVENT_SECRET: secret, PORT: '0' },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const read = () => readFileSync(outFile, 'utf8').split('\n');
  let port: string | undefined;
  while (port === undefined) {
    port = read()
      .map((line) => /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(line)?.[1])
      .find((found) => found !== undefined);
    if (port === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const count = () => read().filter((line) => line.startsWith('#')).length;
  return {
    url: `http://127.0.0.1:${port}/`,
    count,
    async waitFor(events: number) {
      while (count() < events) await new Promise((resolve) => setTimeout(resolve, 100));
    },
    close: () => child.kill('SIGTERM'),
  };
}

import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a running sandbox says how to reach its test routes: the gateway's embedded
 * sandbox listens on a port and takes a token made up at each start, so `payout sandbox …`
 * finds them here. Readable by its owner only (the token opens the test routes); it is
 * trusted only while the process named in it holds the directory's lock.
 */
export const CONTROL_FILE = 'control.json';

export interface SandboxControl {
  url: string;
  apiToken: string;
  agentId: string;
  pid: number;
}

export function writeControlFile(dir: string, control: SandboxControl): void {
  const file = join(dir, CONTROL_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(control), { mode: 0o600 });
  renameSync(temp, file);
}

export function readControlFile(dir: string): SandboxControl | undefined {
  try {
    const control = JSON.parse(readFileSync(join(dir, CONTROL_FILE), 'utf8')) as Partial<SandboxControl>;
    const complete =
      typeof control.url === 'string' &&
      typeof control.apiToken === 'string' &&
      typeof control.agentId === 'string' &&
      typeof control.pid === 'number';
    return complete ? (control as SandboxControl) : undefined;
  } catch {
    return undefined;
  }
}

export function removeControlFile(dir: string): void {
  try {
    unlinkSync(join(dir, CONTROL_FILE));
  } catch {
    // Never written, or already gone.
  }
}

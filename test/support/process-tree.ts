import { readdirSync, readFileSync } from 'node:fs';

/** State and parent of a process from /proc, or undefined once it is gone. */
function stat(pid: number): { state: string; ppid: number } | undefined {
  try {
    // The command name (2nd field) is in parentheses and may hold spaces: parse after its end.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** `pid` and every process below it now (Linux /proc). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = stat(Number(entry))?.ppid;
    if (parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const visit = (id: number) => {
    tree.push(id);
    for (const child of children.get(id) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

/** Still running: a zombie has ended and only waits for its parent to read its status. */
export function running(pid: number): boolean {
  const state = stat(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** SIGKILL for whatever of these still runs: a failed test must not leave a gateway holding its data dir. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      if (running(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

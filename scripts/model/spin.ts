import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** model/ in the repository: copied to a temporary directory, where pan is built and run. */
export const modelDir = fileURLToPath(new URL('../../model/', import.meta.url));

export interface Check {
  name: string;
  /** -D flags for spin (the model's bounds, mutants, assumptions). */
  defines: string[];
  /** Extra flags for gcc (-DBITSTATE, -DSAFETY is added unless liveness). */
  cc?: string[];
  /** An LTL claim to check (with -a -f), else safety (assertions, invalid end states). */
  ltl?: string;
  /** The model file in model/: the pay protocol unless named (approval-choice.pml). */
  model?: string;
}

export interface CheckResult {
  name: string;
  errors: number;
  /** The violated assertion's text, or the claim's, when errors > 0. */
  violation: string | null;
  /** The property the violated assertion stands for (its comment in the model: "P1 once-per-line"). */
  property: string | null;
  statesStored: number;
  transitions: number;
  depth: number;
  stateVectorBytes: number;
  memoryMb: number;
  seconds: number;
  complete: boolean;
  /** The counterexample replayed as the model's step messages, when errors > 0. */
  trail: string[];
}

export function spinAvailable(): string | null {
  const found = spawnSync('spin', ['-V'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

export function requireSpin(): void {
  if (spinAvailable() === null) {
    throw new Error('spin is not installed: the model check needs it (Debian: apt-get install spin; .ci/run installs it)');
  }
}

/** spin -a, gcc, ./pan in a temporary directory; the counterexample, if any, replayed. */
export function runCheck(check: Check): CheckResult {
  requireSpin();
  const dir = mkdtempSync(join(tmpdir(), 'pay-model-'));
  try {
    cpSync(modelDir, dir, { recursive: true });
    const started = performance.now();
    const model = check.model ?? 'pay-protocol.pml';
    execFileSync('spin', ['-a', ...check.defines, model], { cwd: dir, stdio: 'pipe' });
    const liveness = check.ltl !== undefined;
    const cc = [...(liveness ? ['-DNOREDUCE', '-DNFAIR=4'] : ['-DSAFETY']), '-DMEMLIM=4096', ...(check.cc ?? [])];
    // -O0: gcc optimising pan.c took 18 s of a check's 19 (the search itself 1 s, 1.7 s
    // unoptimised), measured on the first scope; every check and mutant compiles its own pan.
    // A check's own cc (a later -O) wins.
    execFileSync('gcc', ['-O0', ...cc, '-o', 'pan', 'pan.c'], { cwd: dir, stdio: 'pipe' });
    const panArgs = ['-m2000000', ...(liveness ? ['-a', '-f', '-N', check.ltl!] : [])];
    const pan = spawnSync('./pan', panArgs, { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const seconds = (performance.now() - started) / 1000;
    const out = pan.stdout;
    const number = (pattern: RegExp) => Number(pattern.exec(out)?.[1] ?? NaN);
    const errors = number(/errors: (\d+)/);
    if (Number.isNaN(errors)) throw new Error(`pan gave no result for ${check.name}:\n${out}\n${pan.stderr}`);
    const violation = /pan:\d+: (.*?) \(at depth/.exec(out)?.[1] ?? null;
    let trail: string[] = [];
    let property: string | null = null;
    if (errors > 0) {
      const replay = spawnSync('spin', ['-t', ...check.defines, model], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      trail = readableTrail(replay.stdout, readFileSync(join(dir, 'generated', 'tables.pml'), 'utf8'));
      property = liveness ? check.ltl! : violatedProperty(replay.stdout, readFileSync(join(dir, model), 'utf8'));
    }
    return {
      name: check.name,
      errors,
      violation,
      property,
      statesStored: number(/(\d+) states, stored/),
      transitions: number(/(\d+) transitions/),
      depth: number(/depth reached (\d+)/),
      stateVectorBytes: number(/State-vector (\d+) byte/),
      memoryMb: number(/([\d.]+)\s+total actual memory usage/),
      seconds,
      complete: !/Search not completed/.test(out) || errors > 0,
      trail,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const upstream = ['none', 'READY', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'EXPIRED'];
const answers = [
  'not sent (connection refused or breaker open)',
  'lost',
  'the payment',
  'payout.resource.exists',
  'refused (4xx)',
  'payout.payment.not-found',
];

/** The model's MSG lines with the table's numbers as names: the trail as a step list. */
export function readableTrail(replay: string, tables: string): string[] {
  const names = new Map<string, string[]>();
  for (const match of tables.matchAll(/^#define (IS|TS|BS|OC)_(\w+) (\d+)$/gm)) {
    const list = names.get(match[1]!) ?? [];
    list[Number(match[3])] = match[2]!;
    names.set(match[1]!, list);
  }
  const name = (kind: string, value: string) => {
    const index = Number(value);
    if (kind === 'UP') return upstream[index] ?? value;
    if (kind === 'ANS') return answers[index] ?? value;
    if (kind === 'P') return `line ${Math.floor(index / 2) + 1}'s paymentId #${(index % 2) + 1}`;
    return names.get(kind)?.[index] ?? value;
  };
  const steps: string[] = [];
  for (const line of replay.split('\n')) {
    const message = /MSG (.*)$/.exec(line)?.[1];
    if (message !== undefined) {
      steps.push(
        message
          .replace(/\b(IS|TS|BS|OC|UP|ANS|P):(\d+)/g, (_, kind: string, value: string) => name(kind, value))
          .replace(/\brow (\d+)/g, (_, r: string) => `row ${Number(r) + 1}`),
      );
    }
    const failed = /assertion violated (.*)$/.exec(line) ?? /text of failed assertion: (.*)$/.exec(line);
    if (failed !== undefined && failed !== null && !steps.at(-1)?.startsWith('VIOLATED')) steps.push(`VIOLATED: ${failed[1]}`);
  }
  return steps;
}

/** The property named in the comment on the line of the assertion the replay stopped at. */
export function violatedProperty(replay: string, model: string): string | null {
  const line = /[\w-]+\.pml:(\d+), Error: assertion violated/.exec(replay)?.[1];
  if (line === undefined) return null;
  return /\/\* (P\d [\w-]+)/.exec(model.split('\n')[Number(line) - 1] ?? '')?.[1] ?? null;
}

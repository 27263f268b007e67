import { SingleBar } from 'cli-progress';
import type { CliContext } from './context.ts';

/** Progress of a long command: a bar on stderr for a person, JSON lines on stderr with --json. */
export interface Progress<P extends Record<string, unknown>> {
  start(total: number, payload: P): void;
  update(value: number, payload: P): void;
  stop(): void;
}

/** With --json, at most one progress line a second (and the last one always): a log, not a stream of redraws. */
const JSON_EVERY_MS = 1_000;

/**
 * The bar for a person (`format` names the payload's fields), or with --json one line
 * `{"progress":kind,"value":…,"total":…,…}` per change: stdout keeps the one document.
 * `forJson` turns the bar's payload into fields a script reads (no words made for the bar).
 */
export function progress<P extends Record<string, unknown>>(
  context: Pick<CliContext, 'json'>,
  kind: string,
  format: string,
  forJson: (payload: P) => Record<string, unknown>,
  options: { etaBuffer?: number } = {},
): Progress<P> {
  if (!context.json) {
    const bar = new SingleBar({ format, hideCursor: true, noTTYOutput: true, notTTYSchedule: 2_000, ...options });
    return {
      start: (total, payload) => bar.start(total, 0, payload),
      update: (value, payload) => bar.update(value, payload),
      stop: () => bar.stop(),
    };
  }
  let total = 0;
  let last: { value: number; payload: P } | undefined;
  let lastLine = '';
  let lastAt = 0;
  const emit = (force: boolean) => {
    if (last === undefined) return;
    const line = JSON.stringify({ progress: kind, value: last.value, total, ...forJson(last.payload) });
    if (line === lastLine || (!force && Date.now() - lastAt < JSON_EVERY_MS)) return;
    lastLine = line;
    lastAt = Date.now();
    process.stderr.write(`${line}\n`);
  };
  return {
    start: (all, payload) => {
      total = all;
      last = { value: 0, payload };
      emit(true);
    },
    update: (value, payload) => {
      last = { value, payload };
      emit(false);
    },
    stop: () => emit(true),
  };
}

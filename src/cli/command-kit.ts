import { InvalidArgumentError, Option } from 'commander';
import type { CliContext } from './context.ts';

/**
 * What every command table (batch-command-table.ts, events-command-table.ts,
 * keys-command-table.ts, sandbox-command-table.ts and main.ts itself) shares: how an action gets its context and
 * hands back its exit code, and the options several commands take. Commander alone is
 * imported here, so `--help` still loads nothing else.
 */
export interface CommandKit {
  context(options?: { json?: boolean }): Promise<CliContext>;
  finish(code: number): void;
}

export const JSON_HELP =
  'print one JSON document on stdout and nothing else (progress: JSON lines on stderr; an error: a JSON object on stderr)';

export const positiveInt = (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return number;
};

/** A repeatable option's values, in the order given. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Held rows repeat a payment already made or under way; paying them is a choice of its own. */
export const includeHeldOption = () =>
  new Option('--include-held', 'pay the held rows too: rows that repeat a payment already made or under way (held back otherwise)');
/** The option's former name, kept for scripts that pass it: hidden from --help, the same choice. */
export const formerIncludeHeldOption = () => new Option('--include-flagged').hideHelp().implies({ includeHeld: true });

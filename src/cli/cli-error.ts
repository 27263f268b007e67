import { answerOf, GatewayError, type ErrorKind } from '../lib/gateway-error.ts';

/**
 * Exit codes of every `payout` command: the table in docs/guide/cli.md ("Exit codes"). 1 is only ever
 * "the answer is no" (not payable, refused, discrepancies open), so a script can tell it
 * from a mistake in the command (2) and from a command that could not finish (3).
 */
export const exitCodes = {
  ok: 0,
  notPayable: 1,
  discrepancies: 1,
  usage: 2,
  failed: 3,
  runFailed: 3,
  failures: 4,
  stoppedByPerson: 5,
  interrupted: 130,
} as const;

/** The `code` a --json error carries when the refusal has none of its own. */
const codeOfExit: Readonly<Record<number, string>> = {
  [exitCodes.notPayable]: 'cli.refused',
  [exitCodes.usage]: 'cli.usage',
  [exitCodes.failed]: 'cli.failed',
};

/** The kind an exit code stands for; 4, 5 and 130 stand for none (the command ran, and was stopped or had failures). */
const kindOfExit: Readonly<Record<number, ErrorKind>> = {
  [exitCodes.notPayable]: 'state',
  [exitCodes.usage]: 'input',
  [exitCodes.failed]: 'unavailable',
};

/** A refusal the CLI prints as its message alone, exiting with its code. */
export class CliError extends GatewayError {
  /** Stable, for --json: the domain's own code (such as batch.same-person) where there is one. */
  readonly code: string;
  readonly kind: ErrorKind;
  constructor(
    message: string,
    /** Its own, not its kind's: the CLI chose it for this command (4 and 5 are no kind's). */
    readonly exitCode: number,
    code?: string,
  ) {
    super(message);
    this.code = code ?? codeOfExit[exitCode] ?? 'cli.failed';
    this.kind = kindOfExit[exitCode] ?? 'internal';
  }
}

/** The kinds whose words are the caller's to read and act on; the rest are for the log (a stack, then exit 3). */
const toldAsRefusal: ReadonlySet<ErrorKind> = new Set(['input', 'not-found', 'state', 'conflict']);

/**
 * How a command that met one of the gateway's errors ends: its own code and words, and the
 * exit code of its kind (a CliError's own). Undefined when the words are not the caller's.
 */
export function failureOf(error: GatewayError): { code: string; message: string; exitCode: number } | undefined {
  if (error instanceof CliError) return { code: error.code, message: error.message, exitCode: error.exitCode };
  if (!toldAsRefusal.has(error.kind)) return undefined;
  return { code: error.code, message: error.message, exitCode: answerOf(error).exitCode };
}

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

/** A refusal the CLI prints as its message alone, exiting with its code. */
export class CliError extends Error {
  /** Stable, for --json: the domain's own code (such as batch.same-person) where there is one. */
  readonly code: string;
  constructor(
    message: string,
    readonly exitCode: number,
    code?: string,
  ) {
    super(message);
    this.code = code ?? codeOfExit[exitCode] ?? 'cli.failed';
  }
}

/** Exit codes of every `payout` command (README, "From the terminal"). */
export const exitCodes = { ok: 0, notPayable: 1, discrepancies: 1, usage: 2, runFailed: 3, failures: 4, interrupted: 130 } as const;

/** A refusal the CLI prints as its message alone, exiting with its code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

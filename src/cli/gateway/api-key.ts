import { readFileSync } from 'node:fs';
import { CliError, exitCodes } from '../cli-error.ts';
import type { CliContext } from '../context.ts';

/**
 * The API key a command sends, from --key-file, PAYOUT_CLI_KEY_FILE or PAYOUT_CLI_KEY: never
 * from the command line, where `ps` shows every process's arguments. The gateway decides
 * what it may do (docs/decisions/0020-the-cli-is-a-client.md).
 */
/** The key the CLI acts as, and where it came from (never its value in a message). */
export function givenKey(context: Pick<CliContext, 'config' | 'keyFile'>): { value: string; from: string } | undefined {
  if (context.keyFile !== undefined) return { value: readKeyFile(context.keyFile), from: context.keyFile };
  const { key, keyFile } = context.config.cliKey;
  if (key !== undefined && keyFile !== undefined)
    throw new CliError('set PAYOUT_CLI_KEY or PAYOUT_CLI_KEY_FILE, not both', exitCodes.usage);
  if (keyFile !== undefined) return { value: readKeyFile(keyFile), from: keyFile };
  if (key !== undefined) return { value: key.trim(), from: 'PAYOUT_CLI_KEY' };
  return undefined;
}

/** The key alone in a file (a trailing newline is fine); its content is never printed. */
function readKeyFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the key file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, exitCodes.usage);
  }
  const key = text.trim();
  if (key === '' || /\s/.test(key)) throw new CliError(`the key file ${file} must hold one key and nothing else`, exitCodes.usage);
  return key;
}

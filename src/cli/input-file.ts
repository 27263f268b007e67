import { createReadStream, existsSync, statSync } from 'node:fs';
import { CliError, exitCodes } from './cli-error.ts';

/** A file named on the command line, refused with a usage error when it is not one. */
export function readable(file: string): AsyncIterable<Uint8Array> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`no such file: ${file}`, exitCodes.usage);
  return createReadStream(file);
}

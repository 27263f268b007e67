import { isConnectionLost } from '../../db/connection-lost.ts';
import type { FileProblem } from './read/csv-reader.ts';
import { GatewayError } from '../../lib/gateway-error.ts';

/** An import that cannot go on, with what to tell the person who uploaded the file. */
export class ImportFailure extends GatewayError {
  readonly code: string;
  // Its one use: the provider details could not be read from the partner (scan-file.ts).
  readonly kind = 'upstream';
  constructor(readonly problem: FileProblem) {
    super(problem.message);
    this.code = problem.code;
    this.name = 'ImportFailure';
  }
}

export const failed = (message: string): FileProblem => ({ line: null, column: null, code: 'import.failed', message });

/** The batch was cancelled, or given up by the sweep, while its file was being read. */
export class ImportAbandoned extends GatewayError {
  readonly code = 'import.abandoned';
  readonly kind = 'state';
  constructor() {
    super('the batch stopped being VALIDATING while its file was read');
    this.name = 'ImportAbandoned';
  }
}

/** What the uploader is told; the error itself (which may quote data) goes to the log only. */
export function failureProblem(error: unknown): FileProblem {
  if (error instanceof ImportFailure) return error.problem;
  if (isConnectionLost(error))
    return failed('the database connection was lost while the file was read in; nothing from it will be paid, import it again');
  return failed('the file could not be imported because of an internal error (logged); nothing from it will be paid, import it again');
}

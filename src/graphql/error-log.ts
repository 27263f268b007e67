import { maskError } from './error-codes.ts';
import type { Logger } from '../log/logger.ts';

/** The codes of a caller's own mistakes (docs/api/error-codes.md): the answer tells the caller; nothing is wrong here. */
const CLIENT_CODES = new Set([
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'FORBIDDEN',
  'UNAUTHENTICATED',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
]);

/**
 * Yoga's error log. Yoga logs every error its mask rewrote, and the mask rewrites the known
 * ones too (to give them a code), so a client's paging mistake would be an error with a
 * stack. Here a client's mistake is info, a partner failure a warning (the payout client
 * has logged the call), both a message and a code without a stack; anything else stays an
 * error with its stack, worded by its message.
 */
export function graphqlErrorLog(log: Logger): (...args: unknown[]) => void {
  return (...args) => {
    const error = args.find((a): a is Error => a instanceof Error);
    const words = args
      .filter((a) => !(a instanceof Error))
      .map(String)
      .join(' ');
    if (error === undefined) return log.error(words);
    const code = String((maskError(error, 'Unexpected error.') as { extensions?: { code?: unknown } }).extensions?.code ?? '');
    const path = (error as { path?: unknown }).path;
    const fields = { code, ...(Array.isArray(path) ? { path: path.join('.') } : {}) };
    if (CLIENT_CODES.has(code)) return log.info(fields, error.message);
    if (code === 'PAYOUT_ERROR') return log.warn(fields, error.message);
    log.error({ err: error }, words || error.message);
  };
}

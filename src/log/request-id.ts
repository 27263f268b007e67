import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * What a caller may choose as its request id: short, and only characters that are safe in
 * a header, a log line, a URL and a shell (UUIDs, ULIDs, trace ids such as "1-5f8a-…").
 * Anything else is replaced, never echoed: the id is written to every log line.
 */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The sent x-request-id when it is safe, otherwise a new UUID. */
export function acceptRequestId(sent: string | string[] | null | undefined): string {
  return typeof sent === 'string' && SAFE_ID.test(sent) ? sent : randomUUID();
}

export interface RequestScope {
  readonly requestId: string;
  /** The GraphQL operation served, once known: written on the request's log line. */
  operation?: { name: string; type: string };
  /** The request's trace, when tracing is on. */
  traceId?: string;
}

/**
 * The request being served, for code that logs without holding the request: the logger's
 * mixin adds its id to every line written while the request is handled, however deep.
 */
export const requestScope = new AsyncLocalStorage<RequestScope>();

/** pino mixin: the request id of the request in scope. A new object each line: pino merges the line's fields into it. */
export function requestLogFields(): object {
  const scope = requestScope.getStore();
  return scope === undefined ? {} : { requestId: scope.requestId };
}

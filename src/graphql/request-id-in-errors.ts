import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { acceptRequestId, REQUEST_ID_HEADER } from '../log/request-id.ts';

const ids = new WeakMap<Request, string>();

/**
 * The request id of a GraphQL request. Over HTTP the server has already put the accepted id
 * in the header (log/request-log.ts); a request made through yoga.fetch gets one here, once.
 */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (id === undefined) {
    id = acceptRequestId(request.headers.get(REQUEST_ID_HEADER));
    ids.set(request, id);
  }
  return id;
}

type Result = { errors?: readonly GraphQLError[] } & Record<string, unknown>;

/**
 * Every error of a GraphQL answer carries `extensions.requestId`, so a user can quote it and
 * an operator find the request's log lines. Errors are copied, never changed in place (an
 * error object may be shared). Streamed results (subscriptions) are left as they are.
 */
export function useRequestIdInErrors(): Plugin {
  return {
    onResultProcess({ request, result, setResult }) {
      if (Symbol.asyncIterator in (result as object)) return;
      const id = requestIdOf(request);
      const tag = (one: Result): Result =>
        one.errors === undefined || one.errors.length === 0 ? one : { ...one, errors: one.errors.map((error) => withRequestId(error, id)) };
      const results = result as unknown as Result | Result[];
      setResult((Array.isArray(results) ? results.map(tag) : tag(results)) as never);
    },
  };
}

function withRequestId(error: GraphQLError, requestId: string): GraphQLError {
  // A copy with the same prototype: yoga still recognises it (and its http extension) as a GraphQLError.
  const copy = Object.create(Object.getPrototypeOf(error), Object.getOwnPropertyDescriptors(error)) as GraphQLError;
  Object.defineProperty(copy, 'extensions', {
    value: { ...error.extensions, requestId },
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}

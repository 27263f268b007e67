import type { Caller } from '../../auth/caller.ts';

/**
 * The server-context slot a transport fills when it authenticated the caller itself
 * (graphql-ws by connectionParams, an EventSource by its ticket). A symbol, so nothing a
 * client sends (headers, query, body) can set it.
 */
export const AUTHENTICATED_CALLER = Symbol('authenticated caller');

export type AuthenticatedContext = { [AUTHENTICATED_CALLER]?: Caller };

export function authenticatedCallerOf(serverContext: object): Caller | undefined {
  return (serverContext as AuthenticatedContext)[AUTHENTICATED_CALLER];
}

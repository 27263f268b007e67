import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { useGraphQLSSE } from '@graphql-yoga/plugin-graphql-sse';
import type { Plugin } from 'graphql-yoga';
import type { ApiKeys } from '../../auth/api-keys.ts';
import { credentialsOf } from '../../auth/credentials.ts';

export const GRAPHQL_SSE_PATH = '/graphql/stream';

type Refusal = [string, { status: number; statusText: string; headers: Record<string, string> }];

/**
 * The GraphQL over SSE protocol (graphql-sse) at /graphql/stream, both modes: distinct
 * connections, and one stream per client reserved by PUT that carries every operation the
 * client starts by POST. Every request needs the same key as /graphql (the client sends its
 * headers on each). A reservation token is bound to the key that reserved it, so another
 * key that learns it can neither open that stream nor run operations into it; the
 * library's own tokens come from Math.random, these from the CSPRNG.
 */
export function useSingleConnectionSse(keys: ApiKeys): Plugin {
  const secret = randomBytes(32);
  const sign = (nonce: string, caller: string) => createHmac('sha256', secret).update(`${nonce}\n${caller}`).digest('base64url');
  const ownedBy = (token: string, caller: string) => {
    const [nonce, mac] = token.split('.');
    if (nonce === undefined || mac === undefined) return false;
    const expected = Buffer.from(sign(nonce, caller));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return useGraphQLSSE({
    endpoint: GRAPHQL_SSE_PATH,
    async authenticate(req) {
      const credentials = credentialsOf(req.headers, req.method);
      const caller = await keys.authenticate(credentials);
      if (caller === undefined) {
        return refusal(401, 'UNAUTHENTICATED', keys.refusal(credentials), {
          'www-authenticate': 'Bearer',
        });
      }
      const presented = req.headers.get('x-graphql-event-stream-token') ?? new URL(req.url, 'http://gateway').searchParams.get('token');
      if (presented !== null && presented !== '') {
        return ownedBy(presented, caller.caller) ? presented : refusal(403, 'FORBIDDEN', 'This stream token was reserved by another key.');
      }
      // A fresh token: registered only if this is a PUT, else it names no stream (distinct mode).
      const nonce = randomUUID();
      return `${nonce}.${sign(nonce, caller.caller)}`;
    },
  }) as Plugin;
}

function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): Refusal {
  return [
    JSON.stringify({ errors: [{ message, extensions: { code } }] }),
    { status, statusText: code, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } },
  ];
}

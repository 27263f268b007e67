import type { IncomingHttpHeaders } from 'node:http';
import { isPreflighted } from './browser-guard.ts';

/** What a request presents: an Authorization header, and the page's session cookie when it may count. */
export interface Credentials {
  authorization?: string | null | undefined;
  /** The session cookie's secret; set only by credentialsOf, which knows when a cookie may be trusted. */
  session?: string | undefined;
}

/**
 * The session cookie's name: with the `__Host-` prefix when the page is served over https (the
 * browser then keeps it to this host, Secure, path /), plain over http (a machine of one's own).
 */
export const SESSION_COOKIE = { secure: '__Host-payout-session', plain: 'payout-session' } as const;

/** Node's headers, or a Fetch-like request's (yoga, graphql-sse). */
type AnyHeaders = IncomingHttpHeaders | { get(name: string): string | null | undefined };

function header(headers: AnyHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers.get as (name: string) => string | null | undefined)(name) ?? undefined;
  const value = (headers as IncomingHttpHeaders)[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** One cookie's value from a Cookie header, or undefined. */
export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * A request's credentials. The session cookie counts only on a request a foreign page could not
 * have made with it: a GET or HEAD (which change nothing), or one a browser would have asked
 * about first (CORS preflight), which the gateway answers only for its own and listed origins.
 * SameSite=Strict keeps the cookie off cross-site requests already; this holds without it.
 */
export function credentialsOf(headers: AnyHeaders, method: string | undefined): Credentials {
  const authorization = header(headers, 'authorization');
  const cookies = header(headers, 'cookie');
  const session = cookieValue(cookies, SESSION_COOKIE.secure) ?? cookieValue(cookies, SESSION_COOKIE.plain);
  if (session === undefined) return { authorization };
  const safe = ['GET', 'HEAD'].includes((method ?? 'GET').toUpperCase()) || isPreflighted(nodeHeaders(headers), method);
  return safe ? { authorization, session } : { authorization };
}

/** The headers isPreflighted reads, as Node's. */
function nodeHeaders(headers: AnyHeaders): IncomingHttpHeaders {
  const names = ['authorization', 'content-type', 'x-graphql-yoga-csrf', 'x-graphql-event-stream-token'];
  return Object.fromEntries(names.flatMap((name) => (header(headers, name) === undefined ? [] : [[name, header(headers, name)]])));
}

import type { IncomingHttpHeaders } from 'node:http';

export interface BrowserPolicy {
  /** Key-less local mode: every request is admin, so only this machine's own pages may call. */
  anonymous: boolean;
  /** GATEWAY_CORS_ORIGINS: origins the operator trusts as well. */
  corsOrigins: readonly string[];
}

export interface BrowserRefusal {
  code: 'FORBIDDEN_ORIGIN' | 'FORBIDDEN_HOST';
  message: string;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * In key-less mode a browser would lend its user's loopback access to any web page: a
 * foreign page can post to the gateway (it sends its own Origin), and a DNS-rebound name
 * reaches it with a foreign Host. Either is refused; with API keys a browser holds no
 * credential the gateway would honour, so nothing here applies.
 */
export function refuseForeignBrowser(
  headers: IncomingHttpHeaders,
  localPort: number | undefined,
  policy: BrowserPolicy,
): BrowserRefusal | undefined {
  if (!policy.anonymous) return undefined;
  const own = new Set(LOOPBACK_NAMES.map((name) => `${name}:${localPort}`));
  const host = headers.host ?? '';
  if (!own.has(hostAndPort(`http://${host}`))) {
    return {
      code: 'FORBIDDEN_HOST',
      message: `Host "${host}" is not this gateway: without GATEWAY_API_KEYS it answers only to localhost, 127.0.0.1 or [::1] on port ${localPort}.`,
    };
  }
  const origin = headers.origin;
  if (origin !== undefined && !(origin.startsWith('http://') && own.has(hostAndPort(origin))) && !policy.corsOrigins.includes(origin)) {
    return {
      code: 'FORBIDDEN_ORIGIN',
      message: `Origin "${origin}" may not call this gateway: without GATEWAY_API_KEYS only its own pages may, or origins listed in GATEWAY_CORS_ORIGINS.`,
    };
  }
  return undefined;
}

/** hostname:port with the default port spelled out, or "" when it does not parse ("null", garbage). */
function hostAndPort(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.pathname !== '/' || parsed.search !== '') return '';
    return `${parsed.hostname}:${parsed.port || '80'}`;
  } catch {
    return '';
  }
}

/**
 * A WebSocket upgrade is not governed by CORS: any page may open one and read what it
 * gets. So with keys as well, a browser's upgrade (it always sends Origin) is accepted only
 * from the gateway's own origin or GATEWAY_CORS_ORIGINS, the origins HTTP answers with
 * CORS headers; key-less mode adds the loopback Host rule above. Clients that are not
 * browsers send no Origin and authenticate by connectionParams alone.
 */
export function refuseForeignSocket(
  headers: IncomingHttpHeaders,
  localPort: number | undefined,
  policy: BrowserPolicy,
): BrowserRefusal | undefined {
  const anonymous = refuseForeignBrowser(headers, localPort, policy);
  if (anonymous !== undefined) return anonymous;
  const origin = headers.origin;
  if (origin === undefined || policy.corsOrigins.includes(origin)) return undefined;
  const host = headers.host;
  if (host !== undefined && ['http:', 'https:'].some((scheme) => hostAndPort(`${scheme}//${host}`) === hostAndPort(origin)))
    return undefined;
  return {
    code: 'FORBIDDEN_ORIGIN',
    message: `Origin "${origin}" may not open a socket to this gateway: only its own pages and origins listed in GATEWAY_CORS_ORIGINS may.`,
  };
}

/**
 * Whether a browser would have asked first (CORS preflight) before sending this request
 * cross-site: a method other than GET, HEAD or POST, a header outside the safelist, or a
 * content type a form cannot send. Such a request from a foreign page never arrives unless
 * the CORS answer allowed it, which is what yoga's CSRF prevention relies on for /graphql.
 */
export function isPreflighted(headers: IncomingHttpHeaders, method: string | undefined): boolean {
  if (!['GET', 'HEAD', 'POST'].includes(method ?? 'GET')) return true;
  if (
    headers.authorization !== undefined ||
    headers['x-graphql-yoga-csrf'] !== undefined ||
    headers['x-graphql-event-stream-token'] !== undefined
  )
    return true;
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type !== '' && !['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'].includes(type);
}

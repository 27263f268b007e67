import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import { refuseForeignBrowser } from '../auth/browser-guard.ts';
import { requestScope } from '../log/request-id.ts';
import { tracedRequests, type HttpObserver } from '../log/request-log.ts';
import { credentialsOf } from '../auth/credentials.ts';

/**
 * What /metrics serves: a scrape of the process's registry (observability/metrics.ts, wired by
 * the composition root), also told of every request answered.
 */
export interface ServedMetrics extends HttpObserver {
  render(): Promise<{ contentType: string; body: string }>;
}

/**
 * Prometheus's default path, and the same with a trailing slash (a common scrape config
 * slip). Nothing else: other names (/prometheus, /stats) stay 404, so there is one address
 * to protect and to document.
 */
export const isMetricsPath = (path: string) => path === '/metrics' || path === '/metrics/';

/** /metrics on the gateway's own port: an admin key, or key-less local mode (the browser guard has run). */
export async function handleGatewayMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { metrics: ServedMetrics; keys: ApiKeys },
): Promise<void> {
  const caller = await deps.keys.authenticate(credentialsOf(req.headers, req.method));
  if (caller === undefined) {
    return problem(
      res,
      401,
      'UNAUTHENTICATED',
      'An admin API key is required: send "Authorization: Bearer <key>", or scrape METRICS_PORT.',
      { 'www-authenticate': 'Bearer' },
    );
  }
  if (caller.role !== 'admin') return problem(res, 403, 'FORBIDDEN', 'Metrics need an admin key.');
  return serveMetrics(req, res, deps.metrics);
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * METRICS_PORT: /metrics alone on its own port, without a key, for a scraper on this
 * machine or a private network. Browsers are refused: a page of any origin (Origin, or
 * Sec-Fetch-Site other than "none"), and, when bound to loopback, any Host but a loopback
 * name, so a DNS-rebound name cannot read it either.
 */
export async function startMetricsServer(options: {
  port: number;
  host: string;
  metrics: ServedMetrics;
  logger: Logger;
}): Promise<MetricsServer> {
  const traced = tracedRequests(options.logger, {
    routeOf: (path) => (isMetricsPath(path) ? '/metrics' : 'other'),
    metrics: options.metrics,
  });
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(options.host);
  const server = createServer((req, res) => {
    traced(req, res, () => {
      const path = new URL(req.url ?? '/', 'http://metrics').pathname;
      const site = req.headers['sec-fetch-site'];
      if (req.headers.origin !== undefined || (site !== undefined && site !== 'none')) {
        return problem(res, 403, 'FORBIDDEN_ORIGIN', 'Metrics are not served to web pages.');
      }
      const refusal = loopback ? refuseForeignBrowser(req.headers, req.socket.localPort, { anonymous: true, corsOrigins: [] }) : undefined;
      if (refusal !== undefined) return problem(res, 403, refusal.code, refusal.message);
      if (!isMetricsPath(path)) return problem(res, 404, 'NOT_FOUND', 'Only /metrics is served on this port.');
      serveMetrics(req, res, options.metrics).catch((error: unknown) => {
        options.logger.error({ err: error }, 'metrics scrape failed');
        if (!res.headersSent) problem(res, 500, 'INTERNAL_SERVER_ERROR', 'Unexpected error.');
        else res.destroy();
      });
    });
  });
  // Scrapers keep connections alive; a stop must not wait for them.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serveMetrics(req: IncomingMessage, res: ServerResponse, metrics: ServedMetrics): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return problem(res, 405, 'BAD_REQUEST', 'Metrics are read with GET.', { allow: 'GET, HEAD' });
  const { contentType, body } = await metrics.render();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A refusal as GraphQL and the browser guard word theirs: a message, a code of the table in docs/api/error-codes.md, the request id to quote. */
function problem(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  const requestId = requestScope.getStore()?.requestId;
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
    .end(JSON.stringify({ errors: [{ message, extensions: { code, ...(requestId === undefined ? {} : { requestId }) } }] }));
}

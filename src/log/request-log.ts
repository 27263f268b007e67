import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from './logger.ts';
import { acceptRequestId, REQUEST_ID_HEADER, requestScope, type RequestScope } from './request-id.ts';
import { context, extractedContext, failed, SpanKind, trace, tracer, tracingOn } from './spans.ts';

/** Probes and scrapes come every few seconds: logged at debug so they do not drown the requests. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/metrics/']);

const pathOf = (url: string | undefined) => {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
};

/**
 * /readyz answering 503 (not migrated yet, the database or the partner not answering, draining)
 * is the probe's answer, not a failed request: its line stays a quiet probe line, with no error
 * object or stack; the server says each change of readiness once, in words (server/http-server.ts).
 */
const isNotReadyAnswer = (path: string, status: number, error: Error | undefined) =>
  error === undefined && status === 503 && path === '/readyz';

/** Told of every request answered (observability/metrics.ts). */
export interface HttpObserver {
  onHttpRequest(method: string, route: string, status: number, seconds: number): void;
}

export interface TracedRequestsOptions {
  /** The route template of a path (server/http-routes.ts): a label and a span name, never the raw path. */
  routeOf?: (path: string) => string;
  metrics?: HttpObserver;
}

/**
 * Every request gets an id (the caller's x-request-id when safe, else a new UUID) that is
 * returned as x-request-id, put back on the request for what reads headers later (yoga),
 * written on the request's log line and, through the request scope, on every
 * other line logged while it is served; the line also names the GraphQL operation served
 * (set on the scope by graphql/operation-observability.ts). With tracing on, the request is a server
 * span, child of the caller's traceparent. Returns the wrapper for a server's handler.
 */
export function tracedRequests(
  logger: Logger,
  options: TracedRequestsOptions = {},
): (req: IncomingMessage, res: ServerResponse, handle: () => void) => void {
  // Only what is safe and useful: no headers (keys, cookies), no query string (GraphQL GET
  // variables may hold card numbers), no body. Safe by construction, so this line skips the
  // logger's redaction, which costs more than the rest of the line (about 25 µs of 40 µs).
  const log = logger.child({ component: 'http' }, { redact: [] });
  const routeOf = options.routeOf ?? (() => 'other');
  // The line pino-http wrote, written here: its two child loggers and three listeners per
  // request cost more than the line itself (issue 41, docs/internals/benchmarks/facade.md).
  const writeLine = (req: IncomingMessage, res: ServerResponse, scope: RequestScope, started: number, error: Error | undefined) => {
    const path = pathOf(req.url);
    const status = res.statusCode;
    const failure = error ?? (res as { err?: Error }).err;
    const fields = {
      req: { method: req.method, path },
      res: { statusCode: status },
      responseTime: Date.now() - started,
      requestId: scope.requestId,
      ...(scope.operation === undefined ? {} : { operationName: scope.operation.name, operationType: scope.operation.type }),
      ...(scope.traceId === undefined ? {} : { traceId: scope.traceId }),
    };
    if (isNotReadyAnswer(path, status, failure)) return log.debug(fields, 'request completed: not ready');
    // A 5xx answered without an error gets one of its own, as pino-http gave it ("failed with status code …").
    if (failure !== undefined || status >= 500)
      return log.error({ ...fields, err: failure ?? new Error(`failed with status code ${status}`) }, 'request errored');
    if (QUIET_PATHS.has(path)) log.debug(fields, 'request completed');
    else log.info(fields, 'request completed');
  };
  return (req, res, handle) => {
    const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const scope: RequestScope = { requestId };
    const started = Date.now();
    // One line, at whichever comes first: answered, closed early, or failed.
    const onEnd = (error?: Error) => {
      res.off('finish', onEnd).off('close', onEnd).off('error', onEnd);
      writeLine(req, res, scope, started, error instanceof Error ? error : undefined);
    };
    res.on('finish', onEnd).on('close', onEnd).on('error', onEnd);
    if (options.metrics === undefined && !tracingOn()) return requestScope.run(scope, handle);
    const method = knownMethods.has(req.method ?? '') ? req.method! : 'other';
    const route = routeOf(pathOf(req.url));
    const measured = performance.now();
    let span: ReturnType<ReturnType<typeof tracer>['startSpan']> | undefined;
    let parent = context.active();
    if (tracingOn()) {
      parent = extractedContext(req.headers);
      span = tracer().startSpan(
        `${method} ${route}`,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'http.route': route } },
        parent,
      );
      scope.traceId = span.spanContext().traceId;
      parent = trace.setSpan(parent, span);
    }
    // 'close' comes for answered and abandoned requests alike; an abandoned one has no status worth counting.
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : 499;
      options.metrics?.onHttpRequest(method, route, status, (performance.now() - measured) / 1000);
      if (span !== undefined) {
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) failed(span, new Error(`HTTP ${status}`));
        span.end();
      }
    });
    context.with(parent, () => requestScope.run(scope, handle));
  };
}

const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

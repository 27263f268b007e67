import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
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
const isNotReadyAnswer = (req: IncomingMessage, res: ServerResponse, error: Error | undefined) =>
  error === undefined && res.statusCode === 503 && pathOf(req.url) === '/readyz';

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
 * written on the request's log line by pino-http and, through the request scope, on every
 * other line logged while it is served; the line also names the GraphQL operation served
 * (set on the scope by graphql/operation-observability.ts). With tracing on, the request is a server
 * span, child of the caller's traceparent. Returns the wrapper for a server's handler.
 */
export function tracedRequests(
  logger: Logger,
  options: TracedRequestsOptions = {},
): (req: IncomingMessage, res: ServerResponse, handle: () => void) => void {
  const scopes = new WeakMap<IncomingMessage, RequestScope>();
  const notReadyAnswers = new WeakSet<ServerResponse>();
  const routeOf = options.routeOf ?? (() => 'other');
  const lineFields = (req: IncomingMessage, fields: object) => {
    const scope = scopes.get(req);
    return {
      ...fields,
      requestId: req.id,
      ...(scope?.operation === undefined ? {} : { operationName: scope.operation.name, operationType: scope.operation.type }),
      ...(scope?.traceId === undefined ? {} : { traceId: scope.traceId }),
    };
  };
  const logRequest = pinoHttp({
    logger: logger.child({ component: 'http' }),
    genReqId: (req) => req.headers[REQUEST_ID_HEADER] as string,
    // Only what is safe and useful: no headers (keys, cookies), no query string (GraphQL GET
    // variables may hold card numbers), no body. Safe by construction, so this line skips the
    // logger's redaction, which costs more than the rest of the line (about 25 µs of 40 µs).
    wrapSerializers: false,
    redact: [],
    serializers: {
      req: (req: IncomingMessage) => ({ method: req.method, path: pathOf(req.url) }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    customSuccessObject: (req, _res, fields) => lineFields(req, fields),
    // Decided with the level (pino-http asks for it first), read by the line's object and message.
    customLogLevel: (req, res, error) => {
      if (isNotReadyAnswer(req, res, error ?? (res as { err?: Error }).err)) {
        notReadyAnswers.add(res);
        return 'debug';
      }
      return error !== undefined || res.statusCode >= 500 ? 'error' : QUIET_PATHS.has(pathOf(req.url)) ? 'debug' : 'info';
    },
    // pino-http gives a 5xx answered without an error an Error of its own ("failed with status code …"), stack and all.
    customErrorObject: (req, res, _error, fields: { err?: unknown }) => {
      if (!notReadyAnswers.has(res)) return lineFields(req, fields);
      const { err: _made, ...rest } = fields;
      return lineFields(req, rest);
    },
    customErrorMessage: (_req, res) => (notReadyAnswers.has(res) ? 'request completed: not ready' : 'request errored'),
  });
  return (req, res, handle) => {
    const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    logRequest(req, res);
    const scope: RequestScope = { requestId };
    scopes.set(req, scope);
    if (options.metrics === undefined && !tracingOn()) return requestScope.run(scope, handle);
    const method = knownMethods.has(req.method ?? '') ? req.method! : 'other';
    const route = routeOf(pathOf(req.url));
    const started = performance.now();
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
      options.metrics?.onHttpRequest(method, route, status, (performance.now() - started) / 1000);
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

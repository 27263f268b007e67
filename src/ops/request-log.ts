import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../log/logger.ts';
import { acceptRequestId, REQUEST_ID_HEADER, requestScope } from './request-id.ts';

/** Probes and scrapes come every few seconds: logged at debug so they do not drown the requests. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/metrics/']);

const pathOf = (url: string | undefined) => {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
};

/**
 * Every request gets an id (the caller's x-request-id when safe, else a new UUID) that is
 * returned as x-request-id, put back on the request for what reads headers later (yoga),
 * written on the request's log line by pino-http and, through the request scope, on every
 * other line logged while it is served. Returns the wrapper for a server's handler.
 */
export function tracedRequests(logger: Logger): (req: IncomingMessage, res: ServerResponse, handle: () => void) => void {
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
    customSuccessObject: (req, _res, fields) => ({ ...fields, requestId: req.id }),
    customErrorObject: (req, _res, _error, fields) => ({ ...fields, requestId: req.id }),
    customLogLevel: (req, res, error) =>
      error !== undefined || res.statusCode >= 500 ? 'error' : QUIET_PATHS.has(pathOf(req.url)) ? 'debug' : 'info',
  });
  return (req, res, handle) => {
    const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    logRequest(req, res);
    requestScope.run({ requestId }, handle);
  };
}

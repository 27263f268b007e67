import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { databaseTrouble } from '../db/connection-lost.ts';
import type { Database } from '../db/database.ts';
import type { GatewayYoga } from '../graphql/yoga.ts';
import type { Logger } from '../log/logger.ts';
import type { PayoutClient } from '../payout/client.ts';
import { handleWebhook, type WebhookIntakeDeps } from '../webhooks/webhook-intake.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import { handleReconciliationDownload, isReconciliationDownload } from './reconciliation-downloads.ts';
import { handleBatchDownload, isBatchDownload } from './batch-downloads.ts';
import { handleTemplate, isTemplate } from './templates.ts';
import { isPreflighted, refuseForeignBrowser } from '../auth/browser-guard.ts';
import { FOLLOW_PATH, handleFollowRequest, handleTicketRequest, TICKETS_PATH, type SubscriptionTickets } from './subscription-tickets.ts';
import { GRAPHQL_SSE_PATH } from '../graphql/transports/graphql-sse.ts';
import { handleJsonPost, takesJsonPost } from '../graphql/transports/json-post.ts';
import { handleGatewayMetrics, isMetricsPath, type ServedMetrics } from './metrics-http.ts';
import { tracedRequests } from '../log/request-log.ts';
import { gatewayRouteOf } from './http-routes.ts';
import { isWebPage, serveWebPage } from './web-page.ts';
import { handleMultipartUpload, isMultipartUpload } from './multipart-upload.ts';
import { MAX_GRAPHQL_BODY_BYTES } from '../graphql/body-limits.ts';
import { credentialsOf } from '../auth/credentials.ts';
import { handleSignIn, isSignInPath, type SignInDeps } from './sign-in-routes.ts';

export interface GatewayServerDeps {
  db: Database;
  client: PayoutClient;
  yoga: GatewayYoga;
  webhooks: WebhookIntakeDeps;
  keys: ApiKeys;
  /** GATEWAY_CORS_ORIGINS, also trusted by the key-less browser guard. */
  corsOrigins: readonly string[];
  /** /metrics for an admin key (or key-less local use); absent, the route is not served. */
  metrics?: ServedMetrics;
  /** A GraphQL multipart request whole: BATCH_MAX_FILE_BYTES plus the envelope. */
  maxUploadBytes: number;
  logger: Logger;
  /** True once the gateway is shutting down: /readyz answers 503 and connections are not kept alive. */
  draining?: () => boolean;
  /** EventSource tickets: minted at /graphql/tickets, followed at /graphql/follow. */
  tickets: SubscriptionTickets;
  /** The page's single sign-on (/auth/…), with GATEWAY_OIDC_ISSUER. */
  signIn?: SignInDeps | undefined;
}

const READY_CHECK_TIMEOUT_MS = 3_000;

/** The gateway's HTTP surface, created apart from listening so tests can drive it. */
export function createGatewayServer(deps: GatewayServerDeps): Server {
  // Every response gets x-request-id and a log line; every line logged meanwhile carries the id.
  const traced = tracedRequests(deps.logger, { routeOf: gatewayRouteOf, metrics: deps.metrics });
  const readiness = readinessChanges(deps.logger);
  return createServer((req, res) => {
    traced(req, res, () => {
      // A client on a kept-alive connection moves to another gateway for its next request.
      if (deps.draining?.() === true) res.setHeader('connection', 'close');
      route(req, res, deps, readiness).catch((error: unknown) => {
        deps.logger.error({ err: error }, 'request failed');
        if (!res.headersSent) refuse(res, 500, 'INTERNAL_SERVER_ERROR', 'Unexpected error.', req);
        else res.destroy();
      });
    });
  });
}

async function route(req: IncomingMessage, res: ServerResponse, deps: GatewayServerDeps, readiness: ReadinessChanges): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://gateway').pathname;
  const refusal = refuseForeignBrowser(req.headers, req.socket.localPort, {
    anonymous: deps.keys.anonymous,
    corsOrigins: deps.corsOrigins,
  });
  if (refusal !== undefined) {
    return refuse(res, 403, refusal.code, refusal.message, req);
  }
  if (isMetricsPath(path) && deps.metrics !== undefined) return handleGatewayMetrics(req, res, { metrics: deps.metrics, keys: deps.keys });
  // Body limits are yoga's (graphql/body-limits.ts): they count the bytes read, chunked or not.
  // Uploads are streamed to disk before yoga, whose multipart parsing holds files in memory.
  if (path === '/graphql' && isMultipartUpload(req)) {
    const credentials = credentialsOf(req.headers, req.method);
    if ((await deps.keys.authenticate(credentials)) === undefined) {
      // Refused before a byte of the file is stored; yoga says the same of other requests.
      res.setHeader('connection', 'close').setHeader('www-authenticate', 'Bearer');
      return json(res, 401, { errors: [{ message: deps.keys.refusal(credentials), extensions: { code: 'UNAUTHENTICATED' } }] });
    }
    return handleMultipartUpload(req, res, {
      yoga: deps.yoga,
      limits: { bodyBytes: deps.maxUploadBytes, fieldBytes: MAX_GRAPHQL_BODY_BYTES },
    });
  }
  // A JSON POST, the common request, skips yoga's HTTP adapter (graphql/transports/json-post.ts).
  if (path === '/graphql') return takesJsonPost(req) ? handleJsonPost(deps.yoga, req, res) : deps.yoga.handle(req, res);
  if (path === GRAPHQL_SSE_PATH) {
    // yoga's CSRF check does not run before the graphql-sse plugin answers: the same rule here.
    if (!isPreflighted(req.headers, req.method) && req.method !== 'OPTIONS') {
      return refuse(
        res,
        403,
        'BAD_REQUEST',
        'A request to /graphql/stream needs "Content-Type: application/json", a key, the stream token header or the header x-graphql-yoga-csrf (CSRF prevention).',
        req,
      );
    }
    return deps.yoga.handle(req, res);
  }
  if (path === TICKETS_PATH)
    return handleTicketRequest(req, res, { yoga: deps.yoga, keys: deps.keys, tickets: deps.tickets, corsOrigins: deps.corsOrigins });
  if (path === FOLLOW_PATH)
    return handleFollowRequest(req, res, { yoga: deps.yoga, keys: deps.keys, tickets: deps.tickets, corsOrigins: deps.corsOrigins });
  if (path === '/webhooks/payout') return handleWebhook(req, res, deps.webhooks);
  if (isBatchDownload(path)) return handleBatchDownload(req, res, path, { prisma: deps.db.prisma, keys: deps.keys });
  if (isReconciliationDownload(path)) return handleReconciliationDownload(req, res, path, { prisma: deps.db.prisma, keys: deps.keys });
  if (isTemplate(path)) return handleTemplate(req, res, path, { client: deps.client, keys: deps.keys });
  if (isSignInPath(path) && deps.signIn !== undefined) return handleSignIn(req, res, path, deps.signIn);
  if (isWebPage(path))
    return serveWebPage(req, res, path, { access: deps.keys.anonymous ? 'anonymous' : deps.signIn === undefined ? 'keys' : 'sign-in' });
  if (path === '/healthz' && req.method === 'GET') return json(res, 200, { status: 'ok' });
  if (path === '/readyz' && req.method === 'GET') {
    if (deps.draining?.() === true) return json(res, 503, { status: 'not ready', checks: { shutdown: 'draining' } });
    const checks = await readinessChecks(deps);
    const ready = Object.values(checks).every((check) => check === 'ok');
    readiness(checks);
    return json(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', checks });
  }
  refuse(res, 404, 'NOT_FOUND', `no route ${req.method} ${path}`, req);
}

type ReadinessChanges = (checks: Record<string, string>) => void;

/**
 * A 503 from /readyz is an expected state (before the first migration, a database restarting, the
 * partner down), not an error: said once at info when it starts or its words change, and once when
 * the gateway is ready again, however often a probe asks. The probe's own request line stays at debug.
 */
function readinessChanges(logger: Logger): ReadinessChanges {
  let last: string | undefined;
  return (checks) => {
    const failing = Object.entries(checks)
      .filter(([, check]) => check !== 'ok')
      .map(([name, check]) => `${name} ${check.replace(/^failing: /, '')}`);
    const words = failing.length === 0 ? 'ready' : `not ready (/readyz answers 503): ${failing.join('; ')}`;
    if (words === last) return;
    // The first ready answer says nothing new: "listening" was logged at start.
    if (words === 'ready' && last === undefined) {
      last = words;
      return;
    }
    logger.info({ checks }, words === 'ready' ? 'ready again: /readyz answers 200' : words);
    last = words;
  };
}

/** Database answering and migrated, upstream answering; each check bounded so a probe never hangs. */
async function readinessChecks(deps: GatewayServerDeps): Promise<Record<string, string>> {
  const run = async (check: () => Promise<unknown>, words: (error: unknown) => string | undefined) => {
    try {
      await withTimeout(check(), READY_CHECK_TIMEOUT_MS);
      return 'ok';
    } catch (error) {
      const said = words(error);
      if (said !== undefined) return `failing: ${said}`;
      // Driver and Prisma text names hosts, databases and Prisma's invocation: logged, not shown to a probe.
      deps.logger.warn({ err: error }, 'readiness check failed');
      return 'failing: the database answered with an error (logged)';
    }
  };
  // A database in trouble is said in words (db/connection-lost.ts), never in the driver's.
  const database = (error: unknown) => (error instanceof NotReady ? error.message : databaseTrouble(error)?.words);
  const [db, migrations, upstream] = await Promise.all([
    run(() => deps.db.ping(), database),
    run(async () => {
      const pending = await deps.db.pendingMigrations();
      if (pending.length > 0) throw new NotReady(`not applied: ${pending.join(', ')}`);
    }, database),
    run(
      () => deps.client.getBalance(),
      (error) => (error instanceof Error ? error.message : 'the Payout API did not answer'),
    ),
  ]);
  return { database: db, migrations, upstream };
}

/** A check's own words (a timeout, migrations not applied): shown as they are. */
class NotReady extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NotReady(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A refusal in the shape and vocabulary GraphQL errors use (docs/api/error-codes.md). */
function refuse(res: ServerResponse, status: number, code: string, message: string, req: IncomingMessage): void {
  json(res, status, { errors: [{ message, extensions: { code, requestId: req.headers['x-request-id'] } }] });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { GatewayConfig } from '../config/env.ts';
import { createGraphQLServer, type GatewayYoga } from '../graphql/yoga.ts';
import type { Logger } from '../log/logger.ts';
import { apiKeysOf } from '../auth/api-keys.ts';
import { KeyRecords } from '../auth/key-records.ts';
import { CompanyIdentity } from '../auth/oidc/company-identity.ts';
import { IdentityProvider } from '../auth/oidc/identity-provider.ts';
import { People } from '../auth/people.ts';
import { Sessions } from '../auth/sessions.ts';
import { createGatewayServer } from '../server/http-server.ts';
import { SubscriptionTickets } from '../server/subscription-tickets.ts';
import { attachGraphQLWebSocket } from '../graphql/transports/graphql-ws.ts';
import { startMetricsServer, type MetricsServer } from '../server/metrics-http.ts';
import { openRuntime, type Runtime, type RuntimeParts } from './runtime.ts';
import { settleRowsFromPayments } from '../batch/index.ts';
import { publishIfHolder } from '../process/gateway-address.ts';

/** How long requests still running at shutdown (once subscriptions and the worker have ended) may take to finish. */
const REQUEST_GRACE_MS = 5_000;
/** While a drain waits for requests being served (nothing asks /readyz), how often it looks. */
const DRAIN_LOOK_MS = 25;

export interface RunningGateway extends Runtime {
  url: string;
  yoga: GatewayYoga;
  server: Server;
  /** METRICS_PORT's server, when set: /metrics without a key. */
  metricsUrl: string | undefined;
  /** After SIGTERM, before stop(): /readyz answers 503 for `ms` while requests are still served. */
  drain(ms: number): Promise<void>;
  /** Ordered shutdown: end subscriptions (with `complete`), stop taking requests, let the worker finish its items, stop background work, then the upstream, then the database. */
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, logger: Logger, parts: RuntimeParts = {}): Promise<RunningGateway> {
  const runtime = await openRuntime(config, logger, parts);
  const { db, upstream, services } = runtime;
  const company =
    config.identity === undefined
      ? undefined
      : new CompanyIdentity(
          new IdentityProvider(config.identity),
          new Sessions(db.prisma, db.query, runtime.keyring, {
            idleMs: config.identity.sessionIdleMs,
            maxMs: config.identity.sessionMaxMs,
            refreshMs: config.identity.sessionRefreshMs,
          }),
          new People(db.prisma),
          logger.child({ component: 'identity' }),
        );
  const keys = apiKeysOf(config).withCompanyIdentity(company).withRecords(new KeyRecords(db.prisma, db.query));
  const yoga = createGraphQLServer({
    services,
    keys,
    logger,
    webhookTargets: {
      allowPrivate: config.webhookAllowPrivate,
      embeddedUpstream: config.payout.mode === 'embedded',
      ownWebhookUrl: () => runtime.webhookUrl,
    },
    corsOrigins: config.corsOrigins,
    // The file plus the multipart envelope around it.
    maxUploadBytes: config.batchLimits.maxBytes + 64 * 1024,
    metrics: runtime.metrics,
    persistedOperations: config.persistedOperations,
  });
  let draining = false;
  const server = createGatewayServer({
    db,
    client: upstream.client,
    yoga,
    webhooks: {
      prisma: db.prisma,
      tracker: services.tracker,
      agentId: upstream.client.agentId,
      secret: upstream.webhookSecret,
      logger,
      deliveries: runtime.metrics,
      settleRow: async (paymentId) => {
        for (const batchId of await settleRowsFromPayments(db.query, [paymentId])) services.batchEvents.workArrived(batchId);
      },
    },
    keys,
    metrics: runtime.metrics,
    corsOrigins: config.corsOrigins,
    maxUploadBytes: config.batchLimits.maxBytes + 64 * 1024,
    logger,
    draining: () => draining,
    tickets: new SubscriptionTickets(),
    signIn: company === undefined ? undefined : { company, publicUrl: config.publicUrl, logger: logger.child({ component: 'sign-in' }) },
  });
  const webSockets = attachGraphQLWebSocket(server, { yoga, keys, corsOrigins: config.corsOrigins, logger });
  // What a drain waits for: requests being served, and whether anything routes by /readyz at all.
  const traffic = { inFlight: 0, readinessAsked: false };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    traffic.inFlight++;
    if (req.url === '/readyz') traffic.readinessAsked = true;
    res.once('close', () => traffic.inFlight--);
  });

  // Anonymous local use is only ever served on loopback (config refuses another HOST).
  const host = config.host ?? (keys.anonymous ? '127.0.0.1' : '0.0.0.0');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, host, () => resolve());
    });
  } catch (error) {
    await webSockets.close();
    await runtime.close();
    throw error;
  }
  let metricsServer: MetricsServer | undefined;
  if (config.metrics.port !== undefined) {
    try {
      metricsServer = await startMetricsServer({ port: config.metrics.port, host: config.metrics.host, metrics: runtime.metrics, logger });
    } catch (error) {
      await webSockets.close();
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
      throw error;
    }
    logger.info({ metricsUrl: `${metricsServer.url}/metrics` }, 'metrics served without a key on METRICS_PORT');
  }
  const address = server.address() as AddressInfo;
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${address.port}`;
  // The embedded sandbox runs here, so it can always reach this process directly.
  if (runtime.webhookUrl === undefined && config.payout.mode === 'embedded') {
    runtime.webhookUrl = `http://127.0.0.1:${address.port}/webhooks/payout`;
  }
  if (runtime.webhookUrl === undefined) {
    logger.warn('GATEWAY_PUBLIC_URL is not set: the upstream gets no webhookUrl, statuses are learned by polling only');
  }
  if (keys.anonymous) logger.warn('GATEWAY_API_KEYS is not set: anonymous local use as admin, listening on loopback only');
  // Keys move the default from loopback to every interface: said, since turning keys on for a try
  // (docs/guide/approval-policy.md) otherwise opens the port to the network unnoticed.
  if (config.host === undefined && host === '0.0.0.0') {
    logger.info(
      { host },
      'listening on every interface (0.0.0.0): GATEWAY_API_KEYS is set and HOST is not; HOST=127.0.0.1 keeps the gateway on this machine',
    );
  }

  // On the embedded database this process is the only way in: the CLI in another terminal
  // finds this address in DATA_DIR, whatever PORT this gateway was given (process/gateway-address.ts).
  // Only a gateway whose workers pay: a command that serves the API itself (the CLI, no worker
  // of its own but for its one batch) would take another command's batch and never pay it.
  const unpublish = config.worker.inProcess
    ? publishIfHolder(config.dataDir, host === '0.0.0.0' || host === '::' ? `http://127.0.0.1:${address.port}` : url, logger)
    : () => {};

  runtime.readBack.start();
  if (config.worker.inProcess) {
    runtime.worker.start();
    runtime.deliverer.start();
  }
  if (config.worker.inProcess && config.reconciliation.daily) runtime.dailyReconciliation.start();

  return Object.assign(runtime, {
    url,
    yoga,
    server,
    metricsUrl: metricsServer?.url,
    async drain(ms: number) {
      draining = true;
      // A balancer that asks /readyz needs the whole drain to see the 503 (most want two or three);
      // with none asking, only the requests being served are waited for (issue 41: an idle stop is quick).
      if (traffic.readinessAsked) {
        logger.info({ drainMs: ms }, 'draining: /readyz answers 503, requests are still served');
        await delay(ms);
        return;
      }
      const until = Date.now() + ms;
      while (traffic.inFlight > 0 && Date.now() < until) await delay(DRAIN_LOOK_MS);
    },
    async stop() {
      draining = true;
      unpublish();
      await metricsServer?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Each stream sends `complete` and its response ends; the connection then closes (draining).
      runtime.endSubscriptions();
      await runtime.worker.stop();
      await runtime.deliverer.stop();
      await runtime.readBack.stop();
      // Open sockets would hold the server open forever: they close with 1001 (going away).
      await webSockets.close();
      // A request still running after the worker has stopped (a large upload) is cut.
      await Promise.race([closed, delay(REQUEST_GRACE_MS, undefined, { ref: false })]);
      server.closeAllConnections();
      await closed;
      await runtime.close();
    },
  });
}

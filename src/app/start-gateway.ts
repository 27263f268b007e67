import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/env.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { databaseTarget } from '../db/target.ts';
import type { GatewayServices } from '../graphql/context.ts';
import { createGraphQLServer, type GatewayYoga } from '../graphql/yoga.ts';
import type { Logger } from '../log/logger.ts';
import { PaymentEvents } from '../payments/events.ts';
import { PaymentService } from '../payments/payment-service.ts';
import { ProviderCatalogue } from '../payments/provider-catalogue.ts';
import { Reconciler } from '../payments/reconciler.ts';
import { PaymentTracker } from '../payments/tracker.ts';
import { ApiKeys } from '../server/api-keys.ts';
import { createGatewayServer } from '../server/http-server.ts';
import { connectUpstream, type Upstream } from './upstream.ts';

export interface RunningGateway {
  url: string;
  db: Database;
  upstream: Upstream;
  services: GatewayServices;
  yoga: GatewayYoga;
  reconciler: Reconciler;
  server: Server;
  /** Ordered shutdown: stop taking requests, stop background work, then the upstream, then the database. */
  stop(): Promise<void>;
}

/** Parts made elsewhere: tests bring their own sandbox and database. */
export interface GatewayParts {
  upstream?: Upstream;
  db?: Database;
}

export async function startGateway(config: GatewayConfig, logger: Logger, parts: GatewayParts = {}): Promise<RunningGateway> {
  // Upstream first: a bad key file should stop startup before the database is touched.
  const upstream = parts.upstream ?? (await connectUpstream(config, logger));
  let db: Database;
  try {
    db = parts.db ?? (await openDatabase(databaseTarget(config)));
    const applied = await db.migrate();
    logger.info({ database: db.kind, applied }, applied.length > 0 ? 'migrations applied' : 'database schema up to date');
  } catch (error) {
    await upstream.close();
    throw error;
  }

  let webhookUrl: string | undefined = config.publicUrl === undefined ? undefined : `${config.publicUrl}/webhooks/payout`;
  const events = new PaymentEvents();
  const tracker = new PaymentTracker(db.prisma, events);
  const catalogue = new ProviderCatalogue(upstream.client, config.providerCacheTtlMs);
  const payments = new PaymentService({ client: upstream.client, tracker, catalogue, webhookUrl: () => webhookUrl, logger });
  const services: GatewayServices = { client: upstream.client, payments, catalogue, tracker, events, prisma: db.prisma };
  const keys = new ApiKeys(config.apiKeys);
  const yoga = createGraphQLServer({ services, keys, logger });
  const server = createGatewayServer({
    db,
    client: upstream.client,
    yoga,
    webhooks: { prisma: db.prisma, tracker, agentId: upstream.client.agentId, secret: upstream.webhookSecret, logger },
    logger,
  });

  // Anonymous local use is only ever served on loopback (config refuses another HOST).
  const host = config.host ?? (keys.anonymous ? '127.0.0.1' : '0.0.0.0');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${address.port}`;
  // The embedded sandbox runs here, so it can always reach this process directly.
  if (webhookUrl === undefined && config.payout.mode === 'embedded') webhookUrl = `http://127.0.0.1:${address.port}/webhooks/payout`;
  if (webhookUrl === undefined) {
    logger.warn('GATEWAY_PUBLIC_URL is not set: the upstream gets no webhookUrl, statuses are learned by polling only');
  }
  if (keys.anonymous) logger.warn('GATEWAY_API_KEYS is not set: anonymous local use as admin, listening on loopback only');

  const reconciler = new Reconciler(tracker, payments, { intervalMs: config.reconcileIntervalMs, batchSize: 50 }, logger);
  reconciler.start();

  return {
    url,
    db,
    upstream,
    services,
    yoga,
    reconciler,
    server,
    async stop() {
      server.closeIdleConnections();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await reconciler.stop();
      // Open SSE subscriptions would hold the server open forever.
      server.closeAllConnections();
      await closed;
      await upstream.close();
      await db.close();
    },
  };
}

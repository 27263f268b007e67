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
import { BatchEvents } from '../batch/batch-events.ts';
import { BatchImporter } from '../batch/batch-importer.ts';
import { BatchService } from '../batch/batch-service.ts';
import { BatchWorker } from '../batch/worker.ts';
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
  worker: BatchWorker;
  server: Server;
  /** Ordered shutdown: stop taking requests, let the worker finish its items, stop background work, then the upstream, then the database. */
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
  const batchEvents = new BatchEvents();
  const batches = new BatchService(db.prisma, batchEvents, { singleUser: config.singleUser });
  const importer = new BatchImporter({ prisma: db.prisma, catalogue, client: upstream.client, limits: config.batchLimits, logger });
  const services: GatewayServices = {
    client: upstream.client,
    payments,
    catalogue,
    tracker,
    events,
    prisma: db.prisma,
    importer,
    batches,
    batchEvents,
  };
  const worker = new BatchWorker(
    { prisma: db.prisma, client: upstream.client, tracker, batches, events: batchEvents, webhookUrl: () => webhookUrl, logger },
    config.worker,
  );
  const keys = new ApiKeys(config.apiKeys);
  const yoga = createGraphQLServer({ services, keys, logger });
  const server = createGatewayServer({
    db,
    client: upstream.client,
    yoga,
    webhooks: { prisma: db.prisma, tracker, agentId: upstream.client.agentId, secret: upstream.webhookSecret, logger },
    keys,
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
  if (config.worker.inProcess) worker.start();

  return {
    url,
    db,
    upstream,
    services,
    yoga,
    reconciler,
    worker,
    server,
    async stop() {
      server.closeIdleConnections();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await worker.stop();
      await reconciler.stop();
      // Open SSE subscriptions would hold the server open forever.
      server.closeAllConnections();
      await closed;
      await upstream.close();
      await db.close();
    },
  };
}

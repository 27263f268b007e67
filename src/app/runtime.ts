import {
  BatchEvents,
  BatchImporter,
  BatchSchedule,
  BatchService,
  BatchWorker,
  CardDataVault,
  FundsCheck,
  ReviewService,
  selectApprovalRows,
} from '../batch/index.ts';
import type { GatewayConfig } from '../config/env.ts';
import { openDatabase, sqlOf, type Database } from '../db/database.ts';
import { databaseTarget } from '../db/target.ts';
import { createPgEventTarget, type SharedEventTarget } from '../events/pg-event-target.ts';
import { pgliteNotices } from '../events/database-notices.ts';
import type { GatewayServices } from '../graphql/context.ts';
import type { Logger } from '../log/logger.ts';
import { PaymentAttempts } from '../payments/attempt.ts';
import { PaymentEvents } from '../payments/events.ts';
import { PaymentService } from '../payments/payment-service.ts';
import { ProviderCatalogue } from '../payments/provider-catalogue.ts';
import { ReadBack } from '../payments/read-back.ts';
import { PaymentTracker } from '../payments/tracker.ts';
import { loadDataKeyring, type DataKeyring } from '../crypto/data-keys.ts';
import { PartnerBreaker } from '../partner/partner-breaker.ts';
import { openPartnerBudget } from '../partner/budget/open-budget.ts';
import type { CallBudget } from '../partner/budget/call-budget.ts';
import { GatewayMetrics } from '../observability/metrics.ts';
import { loggingFailedCalls } from '../observability/upstream-log.ts';
import { ReconciliationService } from '../reconciliation/reconciliation-service.ts';
import { DailyReconciliation } from '../reconciliation/schedule.ts';
import { connectUpstream, type Upstream } from './upstream.ts';
import { EventDeliverer, EventSender, EventSubscriptions, outboundSettings } from '../outbound/index.ts';
import type { ResolveAll } from '../lib/internal-addresses.ts';
import { Approvals } from '../approval/approvals.ts';
import { loadPolicy } from '../approval/policy-file.ts';
import { PaymentPayees } from '../payees/payment-payees.ts';
import { PayeeKeys } from '../payees/payee-keys.ts';

/** Parts made elsewhere: tests bring their own sandbox and database. */
export interface RuntimeParts {
  upstream?: Upstream;
  db?: Database;
  /** How event endpoints' names resolve (tests: DNS rebinding without DNS). */
  resolveHost?: ResolveAll;
}

/** Everything but HTTP: shared by the gateway, `npm run worker` and the CLI. */
export interface Runtime {
  db: Database;
  /** The data keys (crypto/data-keys.ts): card data, payees, event secrets, page sessions' tokens. */
  keyring: DataKeyring;
  upstream: Upstream;
  services: GatewayServices;
  worker: BatchWorker;
  /** Delivers outbound events to subscriptions (outbound/); started beside the worker. */
  deliverer: EventDeliverer;
  /** Reads unsettled payments back (payments/read-back.ts). */
  readBack: ReadBack;
  /** Yesterday's reconciliation once a day; started with the worker when RECONCILE_DAILY is on. */
  dailyReconciliation: DailyReconciliation;
  /** This process's side of the partner breaker shared through the database (partner/). */
  breaker: PartnerBreaker;
  /** This process's side of the deployment's partner budget (partner/budget/). */
  budget: CallBudget;
  /** This process's Prometheus metrics (observability/metrics.ts), fed by the client, the worker and the webhook intake. */
  metrics: GatewayMetrics;
  /** Where the upstream should send webhooks; the gateway sets it once it listens. */
  webhookUrl: string | undefined;
  /** Ends every GraphQL subscription (each with `complete`): the first step of a gateway's shutdown. */
  endSubscriptions(): void;
  /** Stops the worker (its items finish first) and the read-back, then the events, the upstream, then the database. */
  close(): Promise<void>;
}

export async function openRuntime(config: GatewayConfig, logger: Logger, parts: RuntimeParts = {}): Promise<Runtime> {
  // Upstream first: a bad key file should stop startup before the database is touched.
  // The card data key likewise, before anything is opened (a key file is made in embedded mode).
  const keyring = loadDataKeyring(config.cardData, { dataDir: config.dataDir, embedded: config.payout.mode === 'embedded' });
  const cardData = new CardDataVault(keyring, config.cardData.retentionDays);
  // With the embedded sandbox the database comes first instead: its DATA_DIR lock tells a
  // second process the database is in use before it reaches the sandbox's state beside it.
  const remote = config.payout.mode === 'remote';
  let upstream = remote ? (parts.upstream ?? (await connectUpstream(config, logger))) : undefined;
  let db: Database | undefined;
  try {
    db = parts.db ?? (await openDatabase(databaseTarget(config), { logger }));
    upstream ??= parts.upstream ?? (await connectUpstream(config, logger));
    const applied = await db.migrate();
    logger.info({ database: db.kind, applied }, applied.length > 0 ? 'migrations applied' : 'database schema up to date');
  } catch (error) {
    await upstream?.close();
    if (parts.db === undefined) await db?.close();
    throw error;
  }

  const runtime = { webhookUrl: config.publicUrl === undefined ? undefined : `${config.publicUrl}/webhooks/payout` } as Runtime;
  const webhookUrl = () => runtime.webhookUrl;
  // docs/decisions/0008-events-through-listen-notify.md: on PostgreSQL, events reach every gateway and worker process through
  // LISTEN/NOTIFY; PGlite is one process, its events stay in it.
  const eventTarget: SharedEventTarget | undefined =
    db.kind === 'postgresql' && config.databaseUrl !== undefined
      ? createPgEventTarget({ connectionString: config.databaseUrl, query: db.query, logger })
      : undefined;
  // What the database's own triggers notify (recorded events wake deliverers): through the event target, or PGlite's listen.
  const notices = eventTarget ?? (db.listen === undefined ? undefined : await pgliteNotices(db, logger));
  const budget = openPartnerBudget(config.partnerBudget, {
    db,
    connectionString: config.databaseUrl,
    agentId: upstream.client.agentId,
    logger: logger.child({ component: 'partner-budget' }),
    events: eventTarget,
  });
  upstream.client.limit(budget);
  upstream.client.observe(budget);
  const metrics = new GatewayMetrics({ prisma: db.prisma, logger, budget });
  upstream.client.observe(loggingFailedCalls(logger, metrics));
  const events = new PaymentEvents(eventTarget);
  const breaker = new PartnerBreaker(
    {
      query: db.query,
      client: upstream.client,
      logger: logger.child({ component: 'partner-breaker' }),
      ...(eventTarget === undefined ? {} : { events: eventTarget }),
    },
    config.breaker,
  ).attach();
  const tracker = new PaymentTracker(db.prisma, events, { agentId: upstream.client.agentId });
  const catalogue = new ProviderCatalogue(upstream.client, config.providerCacheTtlMs);
  const attempts = new PaymentAttempts(upstream.client, { maxSends: config.payout.maxRetries + 1 });
  // Read and checked before anything else starts: a bad policy file stops startup, naming its lines.
  const approvals = new Approvals(
    {
      policy: loadPolicy({
        file: config.approval.policyFile,
        secondPersonAboveMinor: config.paymentSecondPersonAbove ?? 0n,
        withKeys: config.apiKeys.length > 0 || config.identity !== undefined,
      }),
      lapseDays: config.approval.lapseDays,
      extraForChangedAccounts: config.approval.extraForChangedAccounts,
      singleUser: config.singleUser,
    },
    selectApprovalRows,
  ); // the rows a choice pays: the batch room owns which held rows go

  const payments = new PaymentService({
    client: upstream.client,
    attempts,
    tracker,
    catalogue,
    webhookUrl,
    logger,
    prisma: db.prisma,
    payees: new PaymentPayees(new PayeeKeys(keyring), db.query),
    // A runtime opened single-user (the CLI) has no second person to ask for.
    secondPersonAbove: config.singleUser ? null : config.paymentSecondPersonAbove,
    approvals: config.singleUser ? undefined : approvals,
  });
  const batchEvents = new BatchEvents(eventTarget);
  // A running batch waits while the breaker is open: its subscribers see the wait begin and end.
  breaker.onChange(() => batchEvents.publishToAll());
  const funds = new FundsCheck({ query: db.query, client: upstream.client }, config.commission);
  const batches = new BatchService(db.prisma, batchEvents, {
    singleUser: config.singleUser,
    duplicateWindowDays: config.duplicateWindowDays,
    funds,
    schedule: config.schedule,
    approvals,
  });
  const schedule = new BatchSchedule(db.prisma, batchEvents, { singleUser: config.singleUser, approvals, ...config.schedule });
  const reviews = new ReviewService(
    { prisma: db.prisma, client: upstream.client, records: tracker, events: batchEvents, logger },
    { singleUser: config.singleUser },
  );
  const importer = new BatchImporter({
    prisma: db.prisma,
    bulk: db.bulk,
    query: db.query,
    catalogue,
    client: upstream.client,
    limits: config.batchLimits,
    duplicates: { windowDays: config.duplicateWindowDays },
    staleMs: config.worker.importStaleMs,
    cardData,
    logger,
  });
  const worker = new BatchWorker(
    {
      query: db.query,
      client: upstream.client,
      attempts,
      paymentEvents: events,
      batchEvents,
      webhookUrl,
      cardData,
      logger,
      claims: metrics,
      breaker,
      funds,
      inTransaction: (work) => db.prisma.$transaction((tx) => work(sqlOf(tx))),
    },
    config.worker,
  );
  const readBack = new ReadBack(tracker, payments, { intervalMs: config.readBackIntervalMs, batchSize: 50 }, logger);
  const reconciliations = new ReconciliationService(
    {
      prisma: db.prisma,
      query: db.query,
      client: upstream.client,
      tracker,
      logger: logger.child({ component: 'reconciliation' }),
      owner: worker.owner,
    },
    { ...config.reconciliation, leaseMs: config.worker.leaseMs },
  );
  const dailyReconciliation = new DailyReconciliation(
    {
      prisma: db.prisma,
      query: db.query,
      service: reconciliations,
      logger: logger.child({ component: 'reconciliation' }),
      owner: worker.owner,
    },
    { dailyAt: config.reconciliation.dailyAt, checkEveryMs: 60_000, retryAfterMs: 15 * 60_000 },
  );
  const outbound = outboundSettings(config.events, parts.resolveHost);
  const eventSender = new EventSender(outbound.endpoints, outbound.timeoutMs);
  const eventSubscriptions = new EventSubscriptions(
    { prisma: db.prisma, keyring, sender: eventSender, observer: metrics.events },
    outbound,
  );
  const deliverer = new EventDeliverer(
    {
      prisma: db.prisma,
      query: db.query,
      keyring,
      sender: eventSender,
      logger: logger.child({ component: 'events' }),
      observer: metrics.events,
      notices,
    },
    outbound,
  );
  const shutdown = new AbortController();
  return Object.assign(runtime, {
    db,
    keyring,
    upstream,
    services: {
      client: upstream.client,
      payments,
      catalogue,
      tracker,
      events,
      prisma: db.prisma,
      importer,
      batches,
      schedule,
      funds,
      reviews,
      batchEvents,
      reconciliations,
      eventSubscriptions,
      approvals,
      shutdown: shutdown.signal,
    },
    worker,
    deliverer,
    readBack,
    dailyReconciliation,
    metrics,
    breaker,
    budget,
    endSubscriptions() {
      shutdown.abort();
    },
    async close() {
      shutdown.abort();
      await worker.stop();
      await deliverer.stop();
      await eventSender.close();
      breaker.stop();
      await readBack.stop();
      // A run in progress stops at its next page (it ends FAILED; the schedule takes it again).
      await Promise.all([reconciliations.stop(), dailyReconciliation.stop()]);
      // After the worker: its last events are sent before the pool closes.
      await budget.close();
      await notices?.close();
      await upstream.close();
      await db.close();
    },
  });
}

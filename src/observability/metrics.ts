import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PrismaClient } from '../db/database.ts';
import { BatchItemStatus, BreakerReason, TrackedStatus } from '../db/generated/enums.ts';
import { breakerStates } from '../partner/breaker-states.ts';
import { batchStates, payingStates, waitReasons } from '../batch/index.ts';
import { discrepancyCodes } from '../reconciliation/discrepancy-codes.ts';
import { runStates } from '../reconciliation/run-states.ts';
import type { Logger } from '../log/logger.ts';
import type { CallObserver, ObservedCall } from '../payout/call-hooks.ts';
import { endpointOf } from '../payout/endpoint.ts';
import { scheduleGauges } from './schedule-metrics.ts';
import type { HttpObserver } from '../log/request-log.ts';
import type { OperationObserver } from '../graphql/operation-observability.ts';
import { EventMetrics } from './event-metrics.ts';
import { budgetGauges } from './budget-metrics.ts';
import type { BudgetView } from '../partner/budget/call-budget.ts';

export { endpointOf };

/** How long the database counts are reused: a scrape every few seconds costs one query per gauge. */
const DEFAULT_COUNT_CACHE_MS = 5_000;

export interface MetricsDeps {
  prisma: PrismaClient;
  logger: Logger;
  /** The partner budget's side in this process (partner/budget/call-budget.ts). */
  budget?: { view(): BudgetView };
  countCacheMs?: number;
}

/**
 * The process's Prometheus metrics, in a registry of its own (no global state, so several
 * gateways in one test process never mix their numbers). The parts that make calls, claim
 * rows or take webhooks report here through the observers they are given; the counts of
 * payments and batch rows by status are read from the database when scraped. Labels are
 * bounded sets (endpoint templates, outcome classes, statuses): never an id.
 */
export class GatewayMetrics implements CallObserver, HttpObserver, OperationObserver {
  readonly registry = new Registry();
  /** Outbound event deliveries (src/outbound/), fed by this process's deliverer. */
  readonly events: EventMetrics;
  private readonly upstreamCalls: Counter<'endpoint' | 'outcome'>;
  private readonly upstreamSeconds: Histogram<'endpoint' | 'outcome'>;
  private readonly claimLag: Histogram;
  private readonly deliveries: Counter<'result'>;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly operationSeconds: Histogram<'operation_name' | 'operation_type'>;
  private readonly operationErrors: Counter<'operation_name' | 'operation_type' | 'code'>;

  constructor(deps: MetricsDeps) {
    const registers = [this.registry];
    // The event loop delay is sampled every 100 ms, not prom-client's 10 ms: its timer alone cost an idle process 0.6 % of a core (issue 41).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    this.upstreamCalls = new Counter({
      name: 'payout_upstream_requests_total',
      help: 'Payout API calls by endpoint and outcome (ok, refused, throttled, server-error, bad-response, timeout, network-error, aborted).',
      labelNames: ['endpoint', 'outcome'],
      registers,
    });
    this.upstreamSeconds = new Histogram({
      name: 'payout_upstream_request_duration_seconds',
      help: 'Payout API call latency, from sending to the whole answer read.',
      labelNames: ['endpoint', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.claimLag = new Histogram({
      name: 'payout_batch_claim_lag_seconds',
      help: 'How long a batch row waited between becoming claimable (approval, retry due, lease ended) and a worker of this process claiming it.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    });
    this.deliveries = new Counter({
      name: 'payout_webhook_deliveries_total',
      help: 'Webhook deliveries received by result: applied, duplicate, stale, unknown-payment, amount-mismatch, or refused (bad-signature, wrong-agent, invalid, not-json, too-large).',
      labelNames: ['result'],
      registers,
    });
    this.httpRequests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template (never the raw path; "other" for what no route serves) and status (499: the client left first).',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpSeconds = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency, from the request arriving to the answer written, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.operationSeconds = new Histogram({
      name: 'graphql_operation_duration_seconds',
      help: 'GraphQL operations, from their parameters read to their result (parse, validation and execution), by operation name ("anonymous" when unnamed; "other" past the first 200 names) and type (query, mutation, subscription; "unknown" when the document did not parse or name an operation).',
      labelNames: ['operation_name', 'operation_type'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.operationErrors = new Counter({
      name: 'graphql_operation_errors_total',
      help: "Errors in GraphQL results, by operation name and type and the error's extensions.code (docs/api/error-codes.md). Typed mutation results (PayoutError, InputError) are data, not errors.",
      labelNames: ['operation_name', 'operation_type', 'code'],
      registers,
    });
    this.events = new EventMetrics(this.registry, deps);
    const cacheMs = deps.countCacheMs ?? DEFAULT_COUNT_CACHE_MS;
    const payments = cachedCounts(cacheMs, () =>
      deps.prisma.payment
        .groupBy({ by: ['status'], _count: { _all: true } })
        .then((groups) => groups.map((g) => [g.status, g._count._all] as const)),
    );
    const items = cachedCounts(cacheMs, () =>
      deps.prisma.batchItem
        .groupBy({ by: ['status'], _count: { _all: true } })
        .then((groups) => groups.map((g) => [g.status, g._count._all] as const)),
    );
    reconciliationGauges(
      cachedCounts(cacheMs, () =>
        deps.prisma.reconciliationRun.findFirst({
          where: { status: runStates.completed },
          orderBy: { finishedAt: 'desc' },
          select: { finishedAt: true, countsByCode: true, openCount: true },
        }),
      ),
    );
    const breaker = cachedCounts(cacheMs, () =>
      deps.prisma.partnerBreaker.findFirst({ select: { state: true, reason: true, openedAt: true } }),
    );
    new Gauge({
      name: 'payout_partner_breaker_open',
      help: 'The partner breaker shared by every process (1 while open, by reason: UNREACHABLE, THROTTLED, FAILING): nothing but probes is sent to the Payout API.',
      labelNames: ['reason'],
      registers,
      async collect() {
        const row = await breaker().catch((error: unknown) => {
          deps.logger.warn({ err: error, metric: 'payout_partner_breaker_open' }, 'metrics: could not read the partner breaker');
          return undefined;
        });
        if (row === undefined) return;
        for (const reason of Object.values(BreakerReason))
          this.set({ reason }, row?.state === breakerStates.open && row.reason === reason ? 1 : 0);
      },
    });
    new Gauge({
      name: 'payout_partner_breaker_open_seconds',
      help: 'How long the partner breaker has been open; 0 while closed.',
      registers,
      async collect() {
        const row = await breaker().catch(() => undefined);
        if (row === undefined) return;
        this.set(
          row?.state === breakerStates.open && row.openedAt !== null ? Math.max(0, (Date.now() - row.openedAt.getTime()) / 1000) : 0,
        );
      },
    });
    const pausedBatches = cachedCounts(cacheMs, () =>
      deps.prisma.batch
        .groupBy({
          by: ['status', 'pauseReason'],
          where: { status: { in: [batchStates.paused, ...payingStates] } },
          _count: { _all: true },
        })
        .then((groups) => groups.map((g) => ({ status: g.status, pauseReason: g.pauseReason, count: g._count._all }))),
    );
    new Gauge({
      name: 'payout_batches_waiting',
      help: 'Approved batches that send nothing now, by reason: PERSON and FUNDS (PAUSED), PARTNER_UNREACHABLE, PARTNER_THROTTLED, PARTNER_FAILING (RUNNING while the partner breaker is open).',
      labelNames: ['reason'],
      registers,
      async collect() {
        let groups: Awaited<ReturnType<typeof pausedBatches>>;
        let open: Awaited<ReturnType<typeof breaker>>;
        try {
          [groups, open] = await Promise.all([pausedBatches(), breaker()]);
        } catch (error) {
          deps.logger.warn({ err: error, metric: 'payout_batches_waiting' }, 'metrics: could not count waiting batches');
          return;
        }
        const counts = new Map<string, number>();
        for (const group of groups) {
          const reason =
            group.status === batchStates.paused
              ? group.pauseReason
              : open?.state === breakerStates.open
                ? `PARTNER_${open.reason ?? 'UNREACHABLE'}`
                : null;
          if (reason !== null) counts.set(reason, (counts.get(reason) ?? 0) + group.count);
        }
        for (const reason of waitReasons) this.set({ reason }, counts.get(reason) ?? 0);
      },
    });
    scheduleGauges(registers, deps, cacheMs);
    if (deps.budget !== undefined) budgetGauges(registers, deps.budget);
    statusGauge(
      'payout_payments',
      'Payments tracked in the database by status (the whole database, not this process).',
      Object.values(TrackedStatus),
      payments,
    );
    statusGauge(
      'payout_batch_items',
      'Batch rows in the database by status (the whole database, not this process).',
      Object.values(BatchItemStatus),
      items,
    );

    /** The latest completed reconciliation, read at scrape time: every process reports the same. */
    function reconciliationGauges(
      latest: () => Promise<{ finishedAt: Date | null; countsByCode: unknown; openCount: number } | null>,
    ): void {
      const read = async () => {
        try {
          return { run: await latest() };
        } catch (error) {
          deps.logger.warn({ err: error, metric: 'payout_reconciliation' }, 'metrics: could not read the latest reconciliation');
          return undefined;
        }
      };
      new Gauge({
        name: 'payout_reconciliation_discrepancies',
        help: 'Discrepancies per code found by the latest completed reconciliation run (every code, 0 included).',
        labelNames: ['code'],
        registers,
        async collect() {
          const found = await read();
          if (found === undefined) return;
          const counts = (found.run?.countsByCode ?? {}) as Record<string, number>;
          for (const code of discrepancyCodes) this.set({ code }, counts[code] ?? 0);
        },
      });
      new Gauge({
        name: 'payout_reconciliation_open_discrepancies',
        help: 'Discrepancies left for a person by the latest completed reconciliation run.',
        registers,
        async collect() {
          const found = await read();
          if (found !== undefined) this.set(found.run?.openCount ?? 0);
        },
      });
      new Gauge({
        name: 'payout_reconciliation_last_success_timestamp_seconds',
        help: 'When the latest reconciliation run completed (Unix seconds); 0 before the first.',
        registers,
        async collect() {
          const found = await read();
          if (found !== undefined)
            this.set(found.run?.finishedAt === null || found.run === null ? 0 : found.run.finishedAt.getTime() / 1000);
        },
      });
    }

    function statusGauge(
      name: string,
      help: string,
      statuses: string[],
      counts: () => Promise<ReadonlyArray<readonly [string, number]>>,
    ): void {
      new Gauge({
        name,
        help,
        labelNames: ['status'],
        registers,
        async collect() {
          let read: ReadonlyArray<readonly [string, number]>;
          try {
            read = await counts();
          } catch (error) {
            // A scrape still answers with everything else; the gauge keeps its last values.
            deps.logger.warn({ err: error, metric: name }, 'metrics: could not count from the database');
            return;
          }
          // Every status is a series, 0 included, so a status that empties drops to 0 instead of vanishing.
          const byStatus = new Map(read);
          for (const status of statuses) this.set({ status }, byStatus.get(status) ?? 0);
        },
      });
    }
  }

  /** CallObserver: one Payout API call ended. */
  onCall(call: ObservedCall): void {
    const labels = { endpoint: endpointOf(call.method, call.path), outcome: call.outcome };
    this.upstreamCalls.inc(labels);
    this.upstreamSeconds.observe(labels, call.seconds);
  }

  /** HttpObserver: one request answered. */
  onHttpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpSeconds.observe(labels, seconds);
  }

  /** OperationObserver: one GraphQL operation answered, with the codes of its errors. */
  onOperation(name: string, type: string, seconds: number, errorCodes: readonly string[]): void {
    const labels = { operation_name: name, operation_type: type };
    this.operationSeconds.observe(labels, seconds);
    for (const code of errorCodes) this.operationErrors.inc({ ...labels, code });
  }

  /** A worker claimed rows that had waited this long (milliseconds, database clock). */
  onClaim(waitedMs: readonly number[]): void {
    for (const ms of waitedMs) this.claimLag.observe(Math.max(0, ms) / 1000);
  }

  /** A webhook delivery ended with this result. */
  onDelivery(result: string): void {
    this.deliveries.inc({ result });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** One read shared by the scrapes within `ttlMs`, and by concurrent scrapes. */
function cachedCounts<T>(ttlMs: number, read: () => Promise<T>): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (cached === undefined || now - cached.at >= ttlMs) {
      const value = read();
      cached = { at: now, value };
      // A failed read is not kept: the next scrape tries again.
      value.catch(() => {
        if (cached?.value === value) cached = undefined;
      });
    }
    return cached.value;
  };
}

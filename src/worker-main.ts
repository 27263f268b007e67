import { openRuntime } from './app/runtime.ts';
import { loadDotEnv } from './config/dotenv.ts';
import { loadGatewayConfig } from './config/env.ts';
import { createLogger } from './log/logger.ts';
import { startMetricsServer } from './server/metrics-http.ts';
import { startTracing } from './observability/tracing.ts';
import { exitOnConfigError, onShutdown } from './process/lifecycle.ts';

/**
 * `npm run worker`: pays batch items in a process of its own, next to gateways started
 * with WORKER_IN_PROCESS=false. Several may run against one PostgreSQL; they share the
 * work through leases.
 */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'worker' });
  const tracing = await startTracing(process.env, { serviceName: 'payout-worker', logger });
  const runtime = await openRuntime(config, logger);
  // Its claims and upstream calls are counted in this process: METRICS_PORT serves them (give it a port of its own beside a gateway).
  const metrics =
    config.metrics.port === undefined
      ? undefined
      : await startMetricsServer({ port: config.metrics.port, host: config.metrics.host, metrics: runtime.metrics, logger });
  runtime.readBack.start();
  runtime.worker.start();
  runtime.deliverer.start();
  if (config.reconciliation.daily) runtime.dailyReconciliation.start();
  logger.info(
    {
      worker: runtime.worker.owner,
      concurrency: config.worker.concurrency,
      dailyReconciliation: config.reconciliation.daily,
      metricsUrl: metrics && `${metrics.url}/metrics`,
    },
    'batch worker running',
  );
  onShutdown(logger, [async () => metrics?.close(), () => runtime.close(), () => tracing.shutdown()]);
}

main().catch(exitOnConfigError);

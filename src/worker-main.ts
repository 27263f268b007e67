import { openRuntime } from './app/runtime.ts';
import { loadDotEnv } from './config/dotenv.ts';
import { loadGatewayConfig } from './config/env.ts';
import { createLogger } from './log/logger.ts';
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
  const runtime = await openRuntime(config, logger);
  runtime.reconciler.start();
  runtime.worker.start();
  logger.info({ worker: runtime.worker.owner, concurrency: config.worker.concurrency }, 'batch worker running');
  onShutdown(logger, [() => runtime.close()]);
}

main().catch(exitOnConfigError);

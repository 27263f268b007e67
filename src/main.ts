import { loadDotEnv } from './config/dotenv.ts';
import { loadGatewayConfig } from './config/env.ts';
import { openDatabase, type Database } from './db/database.ts';
import { databaseTarget } from './db/target.ts';
import { createLogger } from './log/logger.ts';
import { startTracing } from './observability/tracing.ts';
import { exitOnConfigError, onShutdown } from './process/lifecycle.ts';

/** `npm start`: the gateway on embedded defaults unless the environment says otherwise. */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'gateway' });
  // OTEL_* unset: resolves at once, nothing of the SDK loaded.
  const tracing = startTracing(process.env, { serviceName: 'payout-gateway', logger });
  tracing.catch(() => {});
  // The embedded database boots first (its wasm compiles off the main thread) while the
  // rest of the gateway's modules load; its DATA_DIR lock is taken before anything else.
  const opening: Promise<Database> | undefined =
    config.databaseUrl === undefined ? openDatabase(databaseTarget(config), { logger }) : undefined;
  opening?.catch(() => {});
  let start: typeof import('./app/start-gateway.ts').startGateway;
  try {
    ({ startGateway: start } = await import('./app/start-gateway.ts'));
  } finally {
    // A module that fails to load must not leave the database open behind the error.
    if (start! === undefined)
      await opening?.then(
        (db) => db.close(),
        () => {},
      );
  }
  const db = await opening;
  let gateway: Awaited<ReturnType<typeof start>>;
  try {
    await tracing;
    gateway = await start(config, logger, db === undefined ? {} : { db });
  } catch (error) {
    await db?.close();
    throw error;
  }
  logger.info({ url: gateway.url }, `payout-gateway listening on ${gateway.url} (health: ${gateway.url}/healthz)`);
  // Spans of the last requests are sent after they end.
  onShutdown(logger, [() => gateway.drain(config.shutdownDrainMs), () => gateway.stop(), async () => (await tracing).shutdown()]);
}

main().catch(exitOnConfigError);

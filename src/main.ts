import { startGateway } from './app/start-gateway.ts';
import { loadDotEnv } from './config/dotenv.ts';
import { loadGatewayConfig } from './config/env.ts';
import { createLogger } from './log/logger.ts';
import { exitOnConfigError, onShutdown } from './process/lifecycle.ts';

/** `npm start`: the gateway on embedded defaults unless the environment says otherwise. */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'gateway' });
  const gateway = await startGateway(config, logger);
  logger.info({ url: gateway.url }, `payout-gateway listening on ${gateway.url} (health: ${gateway.url}/healthz)`);
  onShutdown(logger, [() => gateway.stop()]);
}

main().catch(exitOnConfigError);

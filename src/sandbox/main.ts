import { join } from 'node:path';
import { loadDotEnv } from '../config/dotenv.ts';
import { loadSandboxEnv } from '../config/env.ts';
import { ensureDevKeyPair, readRsaKey } from '../config/keys.ts';
import { createLogger } from '../log/logger.ts';
import { exitOnConfigError, onShutdown } from '../process/lifecycle.ts';
import { createSandbox } from './server.ts';
import { sandboxBehaviour } from './settings.ts';

/** `npm run sandbox`: the partner API sandbox as a standalone server. */
async function main(): Promise<void> {
  loadDotEnv();
  const env = loadSandboxEnv(process.env);
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'sandbox' });
  const keyFile = env.PAYOUT_PUBLIC_KEY_FILE ?? ensureDevKeyPair(env.DATA_DIR).publicKeyFile;
  // Apart from the embedded sandbox's DATA_DIR/sandbox: a gateway and this may run side by side.
  const stateDir = env.SANDBOX_DATA_DIR ?? join(env.DATA_DIR, 'sandbox-standalone');
  const sandbox = createSandbox({
    agentId: env.PAYOUT_AGENT_ID,
    apiToken: env.PAYOUT_API_TOKEN,
    publicKeyPem: readRsaKey(keyFile, 'PAYOUT_PUBLIC_KEY_FILE', 'public'),
    webhookSecret: env.PAYOUT_WEBHOOK_SECRET,
    ...sandboxBehaviour(env),
    stateDir,
    logger,
  });
  const url = await sandbox.listen(env.SANDBOX_PORT, env.HOST ?? '127.0.0.1');
  logger.info(
    { url, agentId: env.PAYOUT_AGENT_ID, publicKeyFile: keyFile, stateDir },
    `Payout API sandbox listening on ${url}/partner/payout/v2/agents/${env.PAYOUT_AGENT_ID}`,
  );
  onShutdown(logger, [() => sandbox.close()]);
}

main().catch(exitOnConfigError);

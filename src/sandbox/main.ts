import { loadDotEnv } from '../config/dotenv.ts';
import { loadSandboxEnv } from '../config/env.ts';
import { ensureDevKeyPair, readRsaKey } from '../config/keys.ts';
import { createLogger } from '../log/logger.ts';
import { exitOnConfigError, onShutdown } from '../process/lifecycle.ts';
import { createSandbox } from './server.ts';

/** `npm run sandbox`: the partner API sandbox as a standalone server. */
async function main(): Promise<void> {
  loadDotEnv();
  const env = loadSandboxEnv(process.env);
  const logger = createLogger({ level: env.LOG_LEVEL, name: 'sandbox' });
  const keyFile = env.PAYOUT_PUBLIC_KEY_FILE ?? ensureDevKeyPair(env.DATA_DIR).publicKeyFile;
  const sandbox = createSandbox({
    agentId: env.PAYOUT_AGENT_ID,
    apiToken: env.PAYOUT_API_TOKEN,
    publicKeyPem: readRsaKey(keyFile, 'PAYOUT_PUBLIC_KEY_FILE', 'public'),
    webhookSecret: env.PAYOUT_WEBHOOK_SECRET,
    balance: env.SANDBOX_BALANCE,
    overdraft: env.SANDBOX_OVERDRAFT,
    expiryMs: env.SANDBOX_EXPIRY_MS,
    inProgressMs: env.SANDBOX_IN_PROGRESS_MS,
    webhookAttempts: env.SANDBOX_WEBHOOK_ATTEMPTS,
    webhookBackoffMs: env.SANDBOX_WEBHOOK_BACKOFF_MS,
    faults: {
      latencyMs: env.SANDBOX_LATENCY_MS,
      jitterMs: env.SANDBOX_JITTER_MS,
      failBeforeRate: env.SANDBOX_FAIL_BEFORE_RATE,
      failAfterRate: env.SANDBOX_FAIL_AFTER_RATE,
      dropRate: env.SANDBOX_DROP_RATE,
      slowRate: env.SANDBOX_SLOW_RATE,
      slowMs: env.SANDBOX_SLOW_MS,
    },
    logger,
  });
  const url = await sandbox.listen(env.SANDBOX_PORT, env.HOST ?? '127.0.0.1');
  logger.info(
    { url, agentId: env.PAYOUT_AGENT_ID, publicKeyFile: keyFile },
    `Payout API sandbox listening on ${url}/partner/payout/v2/agents/${env.PAYOUT_AGENT_ID}`,
  );
  onShutdown(logger, [() => sandbox.close()]);
}

main().catch(exitOnConfigError);

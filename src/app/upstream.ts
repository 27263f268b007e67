import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayConfig } from '../config/env.ts';
import { ensureDevKeyPair, readRsaKey } from '../config/keys.ts';
import type { Logger } from '../log/logger.ts';
import { PayoutClient } from '../payout/client.ts';
import type { Sandbox } from '../sandbox/server.ts';

export interface Upstream {
  client: PayoutClient;
  webhookSecret: string;
  /** Present in embedded mode: the in-process sandbox the client talks to. */
  sandbox?: Sandbox;
  close(): Promise<void>;
}

/**
 * The partner API the gateway talks to: the configured one, or (PAYOUT_API_URL unset) a
 * sandbox started in this process on a loopback port, so the client path is the same.
 */
export async function connectUpstream(config: GatewayConfig, logger: Logger): Promise<Upstream> {
  const payout = config.payout;
  const clientSettings = {
    agentId: payout.agentId,
    connectTimeoutMs: payout.connectTimeoutMs,
    headersTimeoutMs: payout.headersTimeoutMs,
    bodyTimeoutMs: payout.bodyTimeoutMs,
    maxRetries: payout.maxRetries,
    logger: logger.child({ component: 'payout-client' }),
  };
  if (payout.mode === 'remote') {
    const client = new PayoutClient({
      ...clientSettings,
      baseUrl: payout.apiUrl,
      apiToken: payout.apiToken,
      privateKeyPem: readRsaKey(payout.privateKeyFile, 'PAYOUT_PRIVATE_KEY_FILE', 'private'),
    });
    return { client, webhookSecret: payout.webhookSecret, close: () => client.close() };
  }
  // Loaded only here: a gateway with a real upstream never loads the sandbox.
  const [{ createSandbox }, { sandboxBehaviour }, { SandboxStateInUseError }] = await Promise.all([
    import('../sandbox/server.ts'),
    import('../sandbox/settings.ts'),
    import('../sandbox/ledger/ledger-log.ts'),
  ]);
  const keys = ensureDevKeyPair(config.dataDir);
  const apiToken = randomBytes(24).toString('base64url');
  const webhookSecret = payout.webhookSecret ?? randomBytes(32).toString('base64url');
  const options = {
    agentId: payout.agentId,
    apiToken,
    publicKeyPem: readFileSync(keys.publicKeyFile, 'utf8'),
    webhookSecret,
    ...sandboxBehaviour(config.sandbox),
    logger: logger.child({ component: 'sandbox' }),
  };
  // Payments, balance and idempotency records outlive the process, as the real upstream's do.
  const stateDir = join(config.dataDir, 'sandbox');
  let sandbox: Sandbox;
  try {
    // publishControl: `payout sandbox …` reaches this sandbox's test routes while the gateway runs.
    sandbox = createSandbox({ ...options, stateDir, publishControl: true });
  } catch (error) {
    if (!(error instanceof SandboxStateInUseError)) throw error;
    // A second process on one DATA_DIR (the CLI or a worker beside a gateway, on PostgreSQL)
    // gets a sandbox of its own, as before the state was kept: the first one's stays whole.
    logger.warn(
      { stateDir, holder: error.pid },
      `the embedded sandbox's state is held by pid ${error.pid}: this process's sandbox keeps its payments in memory; for several processes on one upstream run npm run sandbox and set PAYOUT_API_URL`,
    );
    sandbox = createSandbox(options);
  }
  const baseUrl = await sandbox.listen(0, '127.0.0.1');
  const client = new PayoutClient({
    ...clientSettings,
    baseUrl,
    apiToken,
    privateKeyPem: readFileSync(keys.privateKeyFile, 'utf8'),
  });
  logger.info({ sandboxUrl: baseUrl }, 'PAYOUT_API_URL is not set: using the embedded Payout API sandbox');
  return {
    client,
    webhookSecret,
    sandbox,
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}

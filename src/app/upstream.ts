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
  const [{ createSandbox }, { sandboxBehaviour }] = await Promise.all([import('../sandbox/server.ts'), import('../sandbox/settings.ts')]);
  const keys = ensureDevKeyPair(config.dataDir);
  const apiToken = randomBytes(24).toString('base64url');
  const webhookSecret = payout.webhookSecret ?? randomBytes(32).toString('base64url');
  const sandbox = createSandbox({
    agentId: payout.agentId,
    apiToken,
    publicKeyPem: readFileSync(keys.publicKeyFile, 'utf8'),
    webhookSecret,
    ...sandboxBehaviour(config.sandbox),
    // Payments, balance and idempotency records outlive the process, as the real upstream's do.
    stateDir: join(config.dataDir, 'sandbox'),
    logger: logger.child({ component: 'sandbox' }),
  });
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

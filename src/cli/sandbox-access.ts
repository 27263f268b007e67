import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayConfig } from '../config/env.ts';
import { ensureDevKeyPair } from '../config/keys.ts';
import type { Balance, Payment } from '../payout/models.ts';
import { SandboxApiError } from '../sandbox/api-error.ts';
import type { CallCountsView } from '../sandbox/call-counts.ts';
import { readControlFile } from '../sandbox/control-file.ts';
import { SandboxStateInUseError } from '../sandbox/ledger/ledger-log.ts';
import type { OutageView } from '../sandbox/outage.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';

/**
 * How a `payout sandbox` command reaches a sandbox: a remote one (PAYOUT_API_URL) or a running
 * gateway's embedded one through its /_sandbox/ routes, else the embedded state in
 * DATA_DIR/sandbox directly.
 */
export interface SandboxAccess {
  seed(body: Record<string, unknown>): Promise<{ created: number; paymentIds?: string[]; idPrefix?: string }>;
  alter(paymentId: string, body: Record<string, unknown>): Promise<Payment>;
  list(from: string, to: string): Promise<Payment[]>;
  outage(): Promise<{ outage: OutageView | null }>;
  startOutage(body: Record<string, unknown>): Promise<{ outage: OutageView }>;
  endOutage(): Promise<{ ended: OutageView | null }>;
  balance(): Promise<Balance>;
  changeBalance(body: { set: string } | { add: string }): Promise<Balance & { previousBalance?: Balance['balance'] }>;
  calls(): Promise<CallCountsView>;
  resetCalls(): Promise<CallCountsView>;
  close(): Promise<void>;
}

export async function withSandbox(context: CliContext, work: (sandbox: SandboxAccess) => Promise<number>): Promise<number> {
  const { payout } = context.config;
  const sandbox = payout.mode === 'remote' ? remoteSandbox(payout) : await embeddedSandbox(context.config);
  try {
    return await work(sandbox);
  } catch (error) {
    if (error instanceof SandboxApiError)
      throw new CliError(
        `payout sandbox: ${error.description}${error.errorCode === 'validation.error' ? '' : causeText(error.details)}`,
        exitCodes.usage,
      );
    throw error;
  } finally {
    await sandbox.close();
  }
}

function causeText(cause: unknown): string {
  if (cause === undefined || cause === null || typeof cause !== 'object') return '';
  return ` (${Object.entries(cause as Record<string, string[]>)
    .map(([field, messages]) => `${field}: ${messages.join('; ')}`)
    .join(', ')})`;
}

/**
 * The embedded sandbox: the running gateway's, through the routes its control file names;
 * or, with none running, its own state opened in this process as the gateway would open it.
 */
async function embeddedSandbox(config: GatewayConfig): Promise<SandboxAccess> {
  const [{ createSandbox }, { sandboxBehaviour }] = await Promise.all([import('../sandbox/server.ts'), import('../sandbox/settings.ts')]);
  const stateDir = join(config.dataDir, 'sandbox');
  let sandbox;
  try {
    sandbox = createSandbox({
      agentId: config.payout.agentId,
      apiToken: 'cli',
      publicKeyPem: readFileSync(ensureDevKeyPair(config.dataDir).publicKeyFile, 'utf8'),
      webhookSecret: 'cli',
      ...sandboxBehaviour(config.sandbox),
      stateDir,
    });
  } catch (error) {
    if (!(error instanceof SandboxStateInUseError)) throw error;
    const control = readControlFile(stateDir);
    if (control !== undefined && control.pid === error.pid) return remoteSandbox(control);
    throw new CliError(
      `payout sandbox: the embedded sandbox in ${stateDir} is in use by pid ${error.pid} (a running gateway, npm start). ` +
        'Stop it first, or run the sandbox on its own (npm run sandbox) and point PAYOUT_API_URL at it.',
      exitCodes.usage,
    );
  }
  const features = sandbox.testFeatures;
  const notRunning = async (): Promise<never> => {
    throw new CliError(
      `payout sandbox: no running gateway holds the embedded sandbox in ${stateDir}: an outage and call counts live in a running sandbox. ` +
        'Start the gateway (npm start) first, or run the sandbox on its own (npm run sandbox) and point PAYOUT_API_URL at it.',
      exitCodes.usage,
    );
  };
  return {
    seed: async (body) => features.seed(body),
    alter: async (paymentId, body) => features.alter(paymentId, body),
    list: async (from, to) => {
      const all: Payment[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = sandbox.ledger.list({ from, to, limit: 100, offset });
        all.push(...page);
        if (page.length < 100) return all;
      }
    },
    outage: notRunning,
    startOutage: notRunning,
    endOutage: notRunning,
    calls: notRunning,
    resetCalls: notRunning,
    balance: async () => sandbox.ledger.balance(),
    changeBalance: async (body) => features.changeBalance(body),
    close: () => sandbox.close(),
  };
}

/** A sandbox at PAYOUT_API_URL (npm run sandbox), or the running gateway's, through its /_sandbox/ routes. */
function remoteSandbox(
  target: { apiUrl: string; apiToken: string; agentId: string } | { url: string; apiToken: string; agentId: string },
): SandboxAccess {
  const apiUrl = 'apiUrl' in target ? target.apiUrl : target.url;
  const { apiToken, agentId } = target;
  const call = async (method: string, path: string, body?: unknown) => {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if ((error as { cause?: { code?: unknown } }).cause?.code !== 'ECONNREFUSED') throw error;
      throw new CliError(
        `payout sandbox: ${apiUrl} refuses connections: the sandbox is not running, or an outage set with payout sandbox outage --refuse is in force ` +
          '(its test routes share the port; it ends by itself at its time, or when the sandbox restarts)',
        exitCodes.usage,
      );
    }
    const text = await response.text();
    if (response.status === 404 && path.startsWith('/_sandbox/') && !text.includes('payout.payment.not-found')) {
      throw new CliError(
        `payout sandbox: ${apiUrl} has no sandbox test routes: these commands work only against the sandbox (npm run sandbox)`,
        exitCodes.usage,
      );
    }
    const json = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    if (!response.ok) {
      const cause = json?.cause as Record<string, string[]> | undefined;
      throw new CliError(
        `payout sandbox: ${String(json?.description ?? json?.errorCode ?? response.status)}${causeText(cause)}`,
        exitCodes.usage,
      );
    }
    return json;
  };
  return {
    seed: async (body) => (await call('POST', '/_sandbox/payments', body)) as never,
    alter: async (paymentId, body) => (await call('PATCH', `/_sandbox/payments/${encodeURIComponent(paymentId)}`, body)) as never,
    list: async (from, to) => {
      const all: Payment[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = (await call(
          'GET',
          `/partner/payout/v2/agents/${encodeURIComponent(agentId)}/payments?from=${from}&to=${to}&limit=100&offset=${offset}`,
        )) as unknown as Payment[];
        all.push(...page);
        if (page.length < 100) return all;
      }
    },
    outage: async () => (await call('GET', '/_sandbox/outage')) as never,
    startOutage: async (body) => (await call('POST', '/_sandbox/outage', body)) as never,
    endOutage: async () => (await call('DELETE', '/_sandbox/outage')) as never,
    balance: async () => (await call('GET', '/_sandbox/balance')) as never,
    changeBalance: async (body) => (await call('POST', '/_sandbox/balance', body)) as never,
    calls: async () => (await call('GET', '/_sandbox/calls')) as never,
    resetCalls: async () => (await call('DELETE', '/_sandbox/calls')) as never,
    close: async () => {},
  };
}

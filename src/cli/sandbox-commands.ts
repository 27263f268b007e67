import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayConfig } from '../config/env.ts';
import { ensureDevKeyPair } from '../config/keys.ts';
import { maskRecipientFields } from '../log/mask.ts';
import type { Payment } from '../payout/models.ts';
import { SandboxApiError } from '../sandbox/api-error.ts';
import { SandboxStateInUseError } from '../sandbox/ledger-log.ts';
import { CliError, exitCodes } from './cli-error.ts';
import type { CliContext } from './context.ts';
import { table } from './output.ts';

/**
 * `payout sandbox pay-behind | alter | payments`: the sandbox's test features from the
 * terminal (src/sandbox/test-features.ts), to make the discrepancies a reconciliation
 * finds. With the embedded sandbox they change its state in DATA_DIR/sandbox directly
 * (the gateway must be stopped: it holds that state while it runs); with PAYOUT_API_URL
 * they call that sandbox's /_sandbox/ routes.
 */
interface SandboxAccess {
  seed(body: Record<string, unknown>): Promise<{ created: number; paymentIds?: string[]; idPrefix?: string }>;
  alter(paymentId: string, body: Record<string, unknown>): Promise<Payment>;
  list(from: string, to: string): Promise<Payment[]>;
  close(): Promise<void>;
}

export interface PayBehindOptions {
  amount: string;
  provider?: string;
  count?: number;
  status?: string;
  id?: string;
}

export async function payBehindCommand(options: PayBehindOptions, context: CliContext): Promise<number> {
  return withSandbox(context, async (sandbox) => {
    const made = await sandbox.seed({
      amount: options.amount,
      ...(options.provider === undefined ? {} : { providerCode: options.provider }),
      ...(options.count === undefined ? {} : { count: options.count }),
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.id === undefined ? {} : { paymentId: options.id }),
    });
    context.out(`Made ${made.created} payment${made.created === 1 ? '' : 's'} of ${options.amount} RUB behind the gateway's back (a sandbox test feature):`);
    context.out(made.paymentIds?.join('\n') ?? `${made.idPrefix}1 … ${made.idPrefix}${made.created}`);
    return exitCodes.ok;
  });
}

export interface AlterOptions {
  status?: string;
  errorCode?: string;
  commission?: string;
  amount?: string;
}

export async function alterCommand(paymentId: string, options: AlterOptions, context: CliContext): Promise<number> {
  const change = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  if (Object.keys(change).length === 0) {
    throw new CliError('payout sandbox alter: say what to change: --status, --error-code, --commission or --amount', exitCodes.usage);
  }
  return withSandbox(context, async (sandbox) => {
    const payment = await sandbox.alter(paymentId, change);
    context.out('The upstream now answers (no webhook was sent: the gateway learns it only by reading, or by reconciling):');
    context.out(paymentTable([payment]));
    return exitCodes.ok;
  });
}

export async function paymentsCommand(options: { from?: string; to?: string }, context: CliContext): Promise<number> {
  const today = new Date().toISOString().slice(0, 10);
  return withSandbox(context, async (sandbox) => {
    const payments = await sandbox.list(options.from ?? options.to ?? today, options.to ?? options.from ?? today);
    context.out(payments.length === 0 ? 'The upstream holds no payment created on those days (UTC).' : paymentTable(payments));
    return exitCodes.ok;
  });
}

function paymentTable(payments: Payment[]): string {
  return table(
    ['PAYMENT', 'CREATED', 'STATUS', 'AMOUNT', 'COMMISSION', 'RECIPIENT'],
    payments.map((p) => [
      p.paymentId,
      p.creationDateTime,
      p.status.errorCode === undefined ? p.status.value : `${p.status.value} ${p.status.errorCode}`,
      p.amount.value,
      p.commission.value,
      `${p.recipientDetails.providerCode} ${Object.entries(maskRecipientFields(p.recipientDetails.fields)).map(([k, v]) => `${k}=${v}`).join(' ')}`,
    ]),
  );
}

async function withSandbox(context: CliContext, work: (sandbox: SandboxAccess) => Promise<number>): Promise<number> {
  const { payout } = context.config;
  const sandbox = payout.mode === 'remote' ? remoteSandbox(payout) : await embeddedSandbox(context.config);
  try {
    return await work(sandbox);
  } catch (error) {
    if (error instanceof SandboxApiError) throw new CliError(`payout sandbox: ${error.description}${error.errorCode === 'validation.error' ? '' : causeText(error.details)}`, exitCodes.usage);
    throw error;
  } finally {
    await sandbox.close();
  }
}

function causeText(cause: unknown): string {
  if (cause === undefined || cause === null || typeof cause !== 'object') return '';
  return ` (${Object.entries(cause as Record<string, string[]>).map(([field, messages]) => `${field}: ${messages.join('; ')}`).join(', ')})`;
}

/** The embedded sandbox's own state, opened in this process as the gateway would open it. */
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
    throw new CliError(
      `payout sandbox: the embedded sandbox in ${stateDir} is in use by pid ${error.pid} (a running gateway, npm start). ` +
        'Stop it first, or run the sandbox on its own (npm run sandbox) and point PAYOUT_API_URL at it.',
      exitCodes.usage,
    );
  }
  const features = sandbox.testFeatures;
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
    close: () => sandbox.close(),
  };
}

/** A sandbox at PAYOUT_API_URL (npm run sandbox), through its /_sandbox/ routes. */
function remoteSandbox(payout: Extract<GatewayConfig['payout'], { mode: 'remote' }>): SandboxAccess {
  const { apiUrl, apiToken, agentId } = payout;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status === 404 && path.startsWith('/_sandbox/') && !text.includes('payout.payment.not-found')) {
      throw new CliError(`payout sandbox: ${apiUrl} has no sandbox test routes: these commands work only against the sandbox (npm run sandbox)`, exitCodes.usage);
    }
    const json = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    if (!response.ok) {
      const cause = json?.cause as Record<string, string[]> | undefined;
      throw new CliError(`payout sandbox: ${String(json?.description ?? json?.errorCode ?? response.status)}${causeText(cause)}`, exitCodes.usage);
    }
    return json;
  };
  return {
    seed: async (body) => (await call('POST', '/_sandbox/payments', body)) as never,
    alter: async (paymentId, body) => (await call('PATCH', `/_sandbox/payments/${encodeURIComponent(paymentId)}`, body)) as never,
    list: async (from, to) => {
      const all: Payment[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = (await call('GET', `/partner/payout/v2/agents/${encodeURIComponent(agentId)}/payments?from=${from}&to=${to}&limit=100&offset=${offset}`)) as unknown as Payment[];
        all.push(...page);
        if (page.length < 100) return all;
      }
    },
    close: async () => {},
  };
}

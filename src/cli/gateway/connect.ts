import type { RunningGateway } from '../../app/start-gateway.ts';
import type { GatewayConfig } from '../../config/env.ts';
import { CliError, exitCodes } from '../cli-error.ts';
import { givenKey } from './api-key.ts';
import type { CliContext } from '../context.ts';
import { gatewayClient, unreachable, type GatewayClient } from './gateway-client.ts';
import { embeddedHolder } from '../../process/gateway-address.ts';

/** The gateway a command acts through, and what ends it (the gateway this process started, if it did). */
export interface Connection {
  client: GatewayClient;
  /** Set when no gateway answered and this process serves the API over the database itself. */
  local: RunningGateway | undefined;
  close(): Promise<void>;
}

/** How long a gateway may take to answer /healthz before the CLI decides none is there. */
const PROBE_MS = 5_000;

/**
 * Finds the gateway, as `gh` finds its host: PAYOUT_GATEWAY_URL when set (it must answer),
 * otherwise the one `npm start` serves on this machine (http://127.0.0.1:PORT). When nothing
 * answers there, the command serves the same API itself on a loopback port of its own, over
 * the database the configuration names, and says so: the embedded database is one process's
 * at a time, so this is the way to use the CLI without a gateway running. The command is the
 * same client either way (docs/decisions/0020-the-cli-is-a-client.md).
 */
export async function connect(context: Pick<CliContext, 'config' | 'keyFile' | 'logger' | 'json'>): Promise<Connection> {
  const given = givenKey(context);
  const key = given === undefined ? undefined : { value: given.value, from: given.from };
  const { config } = context;
  if (config.gatewayUrl !== undefined) {
    const probe = await answers(config.gatewayUrl);
    if (probe !== true)
      throw new CliError(
        `${unreachable(config.gatewayUrl, probe).message}: start it, or unset PAYOUT_GATEWAY_URL to use the local database`,
        exitCodes.failed,
        'gateway.unreachable',
      );
    return remote(gatewayClient({ url: config.gatewayUrl, local: false, key }));
  }
  const here = `http://127.0.0.1:${config.port}`;
  if ((await answers(here)) === true) return remote(gatewayClient({ url: here, local: false, key }));
  // The embedded database is one process's: its holder is asked for its gateway before this
  // process loads one of its own, and is never to be stopped for a command (issue 38).
  if (config.databaseUrl === undefined) {
    const found = await holdersGateway(config.dataDir, here);
    if (found !== undefined) {
      notice(
        context,
        `No gateway answers at ${here}; the one that holds ${config.dataDir} answers at ${found}: this command acts through it.`,
      );
      return remote(gatewayClient({ url: found, local: false, key }));
    }
  }
  const gateway = await startLocal(config, context.logger);
  notice(
    context,
    `No gateway answers at ${here}; this command opens ${config.databaseUrl === undefined ? `the embedded database in ${config.dataDir}` : 'the database of DATABASE_URL'} itself.`,
  );
  return {
    client: gatewayClient({ url: gateway.url, local: true, key, lookedAt: here }),
    local: gateway,
    close: () => gateway.stop(),
  };
}

/**
 * The gateway of the process that holds the embedded database, when it published one that
 * answers; undefined when nobody holds it. Held by a process with no API to use (another
 * command paying, a gateway still starting): said at once, with what to do that keeps it running.
 */
async function holdersGateway(dataDir: string, here: string): Promise<string | undefined> {
  const found = embeddedHolder(dataDir);
  if (found === undefined) return undefined;
  if (found.url !== undefined && (await answers(found.url)) === true) return found.url;
  const { holder } = found;
  throw new CliError(
    `no gateway answers at ${here}, and the embedded database in ${dataDir} is held by pid ${holder.pid} (${holder.command}, since ${holder.startedAt}), ` +
      `which ${found.url === undefined ? 'serves no API this command can use' : `does not answer at ${found.url}`}: ` +
      'wait for it to finish, or name its gateway with PAYOUT_GATEWAY_URL (or the PORT it listens on)',
    exitCodes.usage,
    'database.in-use',
  );
}

function remote(client: GatewayClient): Connection {
  return { client, local: undefined, close: async () => {} };
}

/** true when a gateway answers /healthz; otherwise why not (the fetch error, or the status). */
async function answers(url: string): Promise<true | unknown> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(PROBE_MS) });
    const body = (await response.json().catch(() => null)) as { status?: unknown } | null;
    return response.ok && body?.status === 'ok' ? true : new Error(`HTTP ${response.status} from /healthz`);
  } catch (error) {
    return error;
  }
}

/**
 * The gateway `npm start` runs, on loopback port 0 of this process: no worker of its own (a
 * command that pays drives the worker for its one batch: cli/batch/follow.ts), no daily
 * reconciliation, no metrics port. The database lock is taken as `npm start` takes it.
 */
async function startLocal(config: GatewayConfig, logger: CliContext['logger']): Promise<RunningGateway> {
  const { startGateway } = await import('../../app/start-gateway.ts');
  return startGateway(
    {
      ...config,
      port: 0,
      host: '127.0.0.1',
      worker: { ...config.worker, inProcess: false },
      metrics: { ...config.metrics, port: undefined },
    },
    // Its start-up notes (anonymous local use, no public URL) are for a server's operator, not for this command.
    logger.child({}, { level: 'error' }),
  );
}

/** A line for the person on stderr (a JSON line with --json, where stderr carries JSON only). */
export function notice(context: Pick<CliContext, 'json'>, text: string): void {
  process.stderr.write(context.json ? `${JSON.stringify({ notice: text })}\n` : `${text}\n`);
}

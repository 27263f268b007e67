import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The partner credentials the benches' sandbox and gateway share. */
export const benchCredentials = { PAYOUT_AGENT_ID: 'bench', PAYOUT_API_TOKEN: 'bench-token', PAYOUT_WEBHOOK_SECRET: 'bench-secret' };

export interface GatewayProcess {
  pid: number;
  url: string;
  floorUrl: string;
  cpuUs(): Promise<number>;
  /** User and system CPU apart: system time is mostly the sockets' syscalls, the same for every variant. */
  cpu(): Promise<{ user: number; system: number }>;
  stop(): Promise<void>;
}

/**
 * This file with --serve: the gateway as `npm start` composes it, over the sandbox, in a
 * process of its own (worker apart), admin by `apiKey`; its process.cpuUsage() on request.
 * With `profileDir`, its CPU profile (node --cpu-prof) is written there.
 */
export async function startGatewayProcess(
  dir: string,
  sandboxUrl: string,
  apiKey: string,
  profileDir?: string,
  /** A variant's own settings (bench/facade-ab.ts); `cwd` runs the gateway of another checkout. */
  variant: { env?: Record<string, string>; cwd?: string } = {},
): Promise<GatewayProcess> {
  const { ensureDevKeyPair } = await import('../src/config/keys.ts');
  const keys = ensureDevKeyPair(dir);
  const flags = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', 'bench/gateway-process.ts', '--serve'], {
    env: {
      ...process.env,
      ...benchCredentials,
      PAYOUT_API_URL: sandboxUrl,
      PAYOUT_PRIVATE_KEY_FILE: keys.privateKeyFile,
      // A real upstream needs a configured card data key; any 32 bytes do for a benchmark.
      PAYOUT_DATA_KEY: Buffer.alloc(32, 7).toString('base64'),
      GATEWAY_API_KEYS: `${apiKey}:admin`,
      WORKER_IN_PROCESS: 'false',
      DATA_DIR: join(dir, 'gateway'),
      PORT: '0',
      // The production default (info): one request line each, written to /dev/null here.
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      ...variant.env,
    },
    cwd: variant.cwd,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // Answers in the order asked: the first is the listening URL.
  const inbox: unknown[] = [];
  const waiting: Array<(message: any) => void> = [];
  child.on('message', (message) => (waiting.length > 0 ? waiting.shift()!(message) : inbox.push(message)));
  const next = () => new Promise<any>((resolve) => (inbox.length > 0 ? resolve(inbox.shift()) : waiting.push(resolve)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cpu = async () => {
    const reply = next();
    child.send('cpu');
    return (await reply).cpu as { user: number; system: number };
  };
  const ready = await Promise.race([next(), exited.then(() => undefined)]);
  if (ready?.url === undefined) throw new Error('the gateway exited before listening');
  return {
    pid: child.pid!,
    url: ready.url,
    floorUrl: ready.floorUrl,
    async cpuUs() {
      const { user, system } = await cpu();
      return user + system;
    },
    cpu,
    async stop() {
      child.send('stop');
      await exited;
    },
  };
}

async function serve(): Promise<void> {
  const [{ loadGatewayConfig }, { createLogger }, { startGateway: start }] = await Promise.all([
    import('../src/config/env.ts'),
    import('../src/log/logger.ts'),
    import('../src/app/start-gateway.ts'),
  ]);
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'gateway' });
  // As `npm start` does: OTEL_* in the environment turn tracing on (off by default).
  await (await import('../src/observability/tracing.ts')).startTracing(process.env, { serviceName: 'payout-gateway', logger });
  const gateway = await start(config, logger);
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
    if (message === 'stop') void gateway.stop().then(() => process.exit(0));
  });
  const floor = await bareProxy(
    `${process.env.PAYOUT_API_URL}/partner/payout/v2/agents/${config.payout.agentId}/balance`,
    process.env.PAYOUT_API_TOKEN!,
  );
  process.send!({ url: gateway.url, floorUrl: floor });
}

/** The same read through node:http and a kept-alive undici pool, nothing else: what bounds any Node facade. */
async function bareProxy(upstream: string, token: string): Promise<string> {
  const [{ createServer }, { Agent, request }] = await Promise.all([import('node:http'), import('undici')]);
  const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  const server = createServer((req, res) => {
    void (async () => {
      for await (const _chunk of req);
      const answer = await request(upstream, { dispatcher, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
      const balance = (await answer.body.json()) as { available: { value: string } };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: { balance: { available: { value: balance.available.value } } } }));
    })().catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

if (process.argv.includes('--serve')) await serve();

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.ts';
import { toMinorUnits } from '../money/money.ts';
import { sleep } from '../lib/retry.ts';
import { SandboxApiError } from './api-error.ts';
import { INSPECTION_PREFIX, readBody, send, sendProxyPage, sendTruncated } from './http-io.ts';
import { CallCounts } from './call-counts.ts';
import { PartnerRateLimit } from './partner-rate-limit.ts';
import { removeControlFile, writeControlFile } from './control-file.ts';
import { FaultInjector, noFaults, type FaultKind, type FaultRates, type HeldAnswer } from './faults.ts';
import { inspectionRoutes } from './inspection-routes.ts';
import { SandboxLedger } from './ledger/ledger.ts';
import { LedgerLog } from './ledger/ledger-log.ts';
import { Outage } from './outage.ts';
import { routePartner, type PartnerRoute } from './partner-routes.ts';
import { SandboxTestFeatures } from './test-features.ts';
import { ReceivedCalls, type ReceivedCall } from './received-calls.ts';
import { WebhookSender } from './webhook-sender.ts';

export interface SandboxOptions {
  agentId: string;
  apiToken: string;
  /** The partner's RSA public key: payment creation signatures are checked with it. */
  publicKeyPem: string;
  webhookSecret: string;
  /** Starting balance, e.g. "10000000.00". */
  balance?: string;
  overdraft?: string;
  expiryMs?: number;
  inProgressMs?: number;
  webhookAttempts?: number;
  webhookBackoffMs?: number;
  faults?: Partial<FaultRates>;
  /** A partner rate limit (partner-rate-limit.ts): calls a second, bursts up to a second's worth; 0 or unset: none. */
  callsPerSecond?: number;
  now?: () => number;
  random?: () => number;
  logger?: Logger;
  /** Keep payments, balance and idempotency records here across restarts; in memory when unset. */
  stateDir?: string;
  /**
   * Write the URL and token of the test routes to stateDir/control.json while listening,
   * so `payout sandbox …` reaches this sandbox (the gateway's embedded one, whose port and
   * token are made up at each start).
   */
  publishControl?: boolean;
}

export const PARTNER_PREFIX = '/partner/payout/v2/agents/';
/** Sandbox-only routes live here, away from the partner paths. */
export { INSPECTION_PREFIX } from './http-io.ts';

export interface Sandbox {
  readonly server: Server;
  readonly ledger: SandboxLedger;
  readonly faults: FaultInjector;
  readonly webhooks: WebhookSender;
  /** Test features: payments behind the gateway's back, changes upstream, a list that grows, the balance, call counts. */
  readonly testFeatures: SandboxTestFeatures;
  /** The partner's rate limit (a test feature, partner-rate-limit.ts): `set()` changes it while running. */
  readonly rateLimit: PartnerRateLimit;
  /** Refused connections, a hang or 503/429 answers for a while; `clear()` ends it in process, also while refusing. */
  readonly outage: Outage;
  /** Calls held by hold-after or hold-before, whether or not their caller is still there. */
  held(): HeldAnswer[];
  /** The latest partner calls with the traceparent and x-request-id they carried (also GET /_sandbox/received). */
  received(): ReceivedCall[];
  /** Lets every held answer go out as it would have; resolves to how many there were. */
  releaseHeld(): number;
  /** Resolves to the base URL, e.g. http://127.0.0.1:4010 */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** A faithful stand-in for the partner Payout API, for development, tests and benchmarks. */
export function createSandbox(options: SandboxOptions): Sandbox {
  const now = options.now ?? Date.now;
  // First: a directory another process holds refuses this sandbox before anything is made.
  const balanceMinor = toMinorUnits(options.balance ?? '10000000.00');
  const stored =
    options.stateDir === undefined ? undefined : LedgerLog.open(options.stateDir, { startingBalanceMinor: balanceMinor, now: now() });
  const webhooks = new WebhookSender({
    agentId: options.agentId,
    secret: options.webhookSecret,
    attempts: options.webhookAttempts ?? 8,
    backoffMs: options.webhookBackoffMs ?? 500,
    logger: options.logger,
  });
  const ledger = new SandboxLedger({
    stored,
    balanceMinor,
    overdraftMinor: toMinorUnits(options.overdraft ?? '0.00'),
    expiryMs: options.expiryMs ?? 24 * 60 * 60 * 1000,
    inProgressMs: options.inProgressMs ?? 3_000,
    now,
    onStatusChange: (payment) => webhooks.notify(payment),
  });
  const faults = new FaultInjector(noFaults, options.random);
  faults.replaceRates(options.faults ?? {});
  const held = new Map<HeldAnswer, () => void>();
  const counts = new CallCounts(now);
  const rateLimit = new PartnerRateLimit(options.callsPerSecond ?? 0, now);
  const received = new ReceivedCalls();
  const context = { agentId: options.agentId, publicKeyPem: options.publicKeyPem, ledger, now };
  /** Where listen() bound, so a refusal can listen there again. */
  let bound: { port: number; host: string } | undefined;
  let refusing = false;
  const inFlight = new Set<ServerResponse>();
  const outage = new Outage(
    {
      stop() {
        refusing = true;
        server.close();
        // Answers already under way end their connection, so no client reuses it for a call.
        for (const res of inFlight) res.shouldKeepAlive = false;
        server.closeIdleConnections();
      },
      async reopen() {
        refusing = false;
        if (bound !== undefined) await listenAgain(bound);
      },
    },
    now,
    options.logger,
  );
  const testFeatures = new SandboxTestFeatures(ledger, outage, counts, rateLimit);
  const inspect = inspectionRoutes({ ledger, testFeatures, received, webhooks, faults, held, releaseHeld });

  const server = createServer((req, res) => {
    inFlight.add(res);
    if (refusing) res.shouldKeepAlive = false;
    res.once('close', () => inFlight.delete(res));
    handle(req, res).catch((error: unknown) => {
      options.logger?.error({ err: error }, 'sandbox request failed');
      if (!res.headersSent) send(res, 500, new SandboxApiError('internal.error', 'unexpected sandbox failure').toBody(now()));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    try {
      if (url.pathname.startsWith(INSPECTION_PREFIX)) {
        authenticate(req);
        await inspect(req, res, url.pathname.slice(INSPECTION_PREFIX.length).split('/'));
        return;
      }
      if (!url.pathname.startsWith(PARTNER_PREFIX)) {
        throw new SandboxApiError('validation.error', `no method ${req.method} ${url.pathname}`, undefined, { httpStatus: 404 });
      }
      const [agentId = '', ...rest] = url.pathname.slice(PARTNER_PREFIX.length).split('/').map(decodeURIComponent);
      authenticate(req);
      if (agentId !== options.agentId) {
        throw new SandboxApiError('auth.forbidden', `the token has no rights for agent ${agentId}`);
      }
      const route = routePartner(
        { method: req.method ?? 'GET', agentId, rest, query: url.searchParams, headers: req.headers, body: () => readBody(req) },
        context,
      );
      received.note(
        req,
        route.operation,
        `/${rest.map(encodeURIComponent).join('/')}`,
        route.paymentId ?? (rest[0] === 'payments' ? rest[1] : undefined),
      );
      await serveWithFaults(route, res);
    } catch (error) {
      if (!(error instanceof SandboxApiError)) throw error;
      send(res, error.httpStatus, error.toBody(now()), error.retryAfterSeconds);
    }
  }

  function authenticate(req: IncomingMessage): void {
    const header = req.headers.authorization;
    if (header === undefined || header === '') {
      throw new SandboxApiError('auth.failed', 'the Authorization header is missing');
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (match === null) throw new SandboxApiError('auth.error', 'the Authorization header must be "Bearer <token>"');
    if (match[1] !== options.apiToken) throw new SandboxApiError('auth.failed', 'the access token is not known');
  }

  async function serveWithFaults(route: PartnerRoute, res: ServerResponse): Promise<void> {
    counts.note(route.operation, outage.inForce);
    counts.began();
    try {
      rateLimit.take();
      await serveCounted(route, res);
    } finally {
      counts.ended();
    }
  }

  async function serveCounted(route: PartnerRoute, res: ServerResponse): Promise<void> {
    if (route.paymentId !== undefined && (route.operation === 'create' || route.operation === 'execute')) {
      ledger.noteCall(route.operation, route.paymentId);
    }
    const verdict = outage.verdict(route.operation);
    if (verdict.action === 'answer') throw verdict.error;
    if (verdict.action === 'hang') {
      const end = await outage.hold(res);
      // A caller that went away never had its call processed; a dropped one sees the connection cut.
      if (end === 'gone') return;
      if (end === 'drop') return void res.socket?.destroy();
    }
    if (route.operation === 'list') testFeatures.beforeList();
    const delay = faults.latency();
    if (delay > 0) await sleep(delay);
    const fault: FaultKind | undefined = faults.draw(route.operation);
    if (fault === 'drop-before') return void res.socket?.destroy();
    if (fault === 'fail-before') throw injected();
    if (fault === 'hold-before') return hold(route).then(() => Promise.reject(injected()));
    if (fault === 'fail-before-html') return sendProxyPage(res, 502);
    if (fault === 'rate-limit') {
      throw new SandboxApiError('payout.provider.unavailable', 'too many requests (injected)', undefined, {
        httpStatus: 429,
        retryAfterSeconds: 1,
      });
    }
    let result: unknown;
    let failure: SandboxApiError | undefined;
    try {
      result = await route.run();
    } catch (error) {
      if (!(error instanceof SandboxApiError)) throw error;
      failure = error;
    }
    if (fault === 'drop-after') return void res.socket?.destroy();
    if (fault === 'fail-after') throw injected();
    if (fault === 'fail-after-html') return sendProxyPage(res, 504);
    if (fault === 'slow') await sleep(faults.rates.slowMs);
    if (fault === 'hold-after') await hold(route);
    if (fault === 'truncate-after') {
      return failure === undefined ? sendTruncated(res, 200, result) : sendTruncated(res, failure.httpStatus, failure.toBody(now()));
    }
    if (failure !== undefined) throw failure;
    send(res, 200, result);
  }

  function hold({ operation, paymentId }: PartnerRoute): Promise<void> {
    const answer: HeldAnswer = paymentId === undefined ? { operation } : { operation, paymentId };
    return new Promise((resolve) => held.set(answer, resolve));
  }

  function releaseHeld(): number {
    const waiting = [...held.values()];
    held.clear();
    for (const release of waiting) release();
    return waiting.length;
  }

  function injected(): SandboxApiError {
    return new SandboxApiError('payout.internal.error', 'internal error (injected fault)', undefined, { httpStatus: 500 });
  }

  function listenOn(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve(server.address() as AddressInfo);
      });
    });
  }

  /** After a refusal: the same port, which another process may hold for a moment. */
  async function listenAgain({ port, host }: { port: number; host: string }): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await listenOn(port, host);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 50) {
          options.logger?.error({ err: error, port, host }, 'the sandbox could not listen again after refusing connections');
          return;
        }
        await sleep(200);
      }
    }
  }

  return {
    server,
    ledger,
    faults,
    webhooks,
    testFeatures,
    rateLimit,
    outage,
    async listen(port = 0, host = '127.0.0.1') {
      const address = await listenOn(port, host);
      bound = { port: address.port, host };
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      const url = `http://${shownHost}:${address.port}`;
      if (options.publishControl === true && options.stateDir !== undefined) {
        writeControlFile(options.stateDir, { url, apiToken: options.apiToken, agentId: options.agentId, pid: process.pid });
      }
      return url;
    },
    held: () => [...held.keys()].map((answer) => ({ ...answer })),
    received: () => received.list(),
    releaseHeld,
    async close() {
      // A held answer would keep its request open past close; its caller sees the socket end.
      releaseHeld();
      outage.close();
      if (options.publishControl === true && options.stateDir !== undefined) removeControlFile(options.stateDir);
      ledger.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await webhooks.close();
    },
  };
}

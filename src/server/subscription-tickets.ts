import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, parse, type DocumentNode } from 'graphql';
import { MAX_GRAPHQL_BODY_BYTES } from '../graphql/body-limits.ts';
import { AUTHENTICATED_CALLER } from '../graphql/transports/authenticated-caller.ts';
import type { GatewayYoga } from '../graphql/yoga.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import type { Caller } from '../auth/caller.ts';
import { credentialsOf } from '../auth/credentials.ts';

export const TICKETS_PATH = '/graphql/tickets';
export const FOLLOW_PATH = '/graphql/follow';

/** Long enough to hand the URL to an EventSource, short enough that a leaked URL is stale. */
export const TICKET_TTL_MS = 30_000;
/** Unredeemed tickets a gateway holds at most; minting beyond waits for expiries. */
const MAX_OPEN_TICKETS = 10_000;

export interface SubscriptionOperation {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

interface Ticket {
  caller: Caller;
  operation: SubscriptionOperation;
  expiresAt: number;
}

/**
 * One-use tickets for a browser's EventSource, which cannot send a key or a header: an
 * authenticated POST names one subscription operation and gets a ticket; the EventSource
 * URL carries the ticket, which runs exactly that operation as that key, once, within
 * TICKET_TTL_MS. Kept by hash in this process's memory, so the ticket itself is never
 * stored and a gateway restart voids every ticket.
 */
export class SubscriptionTickets {
  private readonly open = new Map<string, Ticket>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = TICKET_TTL_MS,
  ) {}

  mint(caller: Caller, operation: SubscriptionOperation): { ticket: string; expiresAt: Date } | undefined {
    const now = this.now();
    for (const [id, ticket] of this.open) if (ticket.expiresAt <= now) this.open.delete(id);
    if (this.open.size >= MAX_OPEN_TICKETS) return undefined;
    const ticket = randomBytes(24).toString('base64url');
    const expiresAt = now + this.ttlMs;
    this.open.set(hash(ticket), { caller, operation, expiresAt });
    return { ticket, expiresAt: new Date(expiresAt) };
  }

  /** The ticket's caller and operation, once: a second use, or one after expiry, gets undefined. */
  redeem(ticket: string): Omit<Ticket, 'expiresAt'> | undefined {
    const id = hash(ticket);
    const found = this.open.get(id);
    if (found === undefined) return undefined;
    this.open.delete(id);
    return found.expiresAt > this.now() ? found : undefined;
  }
}

export interface TicketRouteDeps {
  yoga: GatewayYoga;
  keys: ApiKeys;
  tickets: SubscriptionTickets;
  /** GATEWAY_CORS_ORIGINS: pages there may mint and follow as they may call /graphql. */
  corsOrigins: readonly string[];
}

/**
 * POST /graphql/tickets, JSON `{ query, variables?, operationName? }` naming one
 * subscription, with the key in Authorization (or none in key-less mode). The JSON content
 * type makes a cross-site request preflighted, so a foreign page cannot mint one for a
 * key-less local gateway either.
 */
export async function handleTicketRequest(req: IncomingMessage, res: ServerResponse, deps: TicketRouteDeps): Promise<void> {
  allowListedOrigin(req, res, deps.corsOrigins);
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
    });
    return void res.end();
  }
  if (req.method !== 'POST') return refuse(res, 405, 'METHOD_NOT_ALLOWED', 'POST a subscription to get a ticket.', { allow: 'POST' });
  const credentials = credentialsOf(req.headers, req.method);
  const caller = await deps.keys.authenticate(credentials);
  if (caller === undefined) {
    return refuse(res, 401, 'UNAUTHENTICATED', deps.keys.refusal(credentials), {
      'www-authenticate': 'Bearer',
    });
  }
  if ((req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json') {
    return refuse(res, 415, 'BAD_REQUEST', 'Send the subscription as "Content-Type: application/json".');
  }
  const body = await readBody(req, MAX_GRAPHQL_BODY_BYTES);
  if (body === undefined) return refuse(res, 413, 'BAD_REQUEST', `The request is larger than ${MAX_GRAPHQL_BODY_BYTES} bytes.`);
  const operation = subscriptionOf(body);
  if (typeof operation === 'string') return refuse(res, 400, 'BAD_REQUEST', operation);
  const minted = deps.tickets.mint(caller, operation);
  if (minted === undefined) return refuse(res, 429, 'TOO_MANY_REQUESTS', 'Too many unused tickets; try again in a few seconds.');
  json(res, 201, {
    ticket: minted.ticket,
    url: `${FOLLOW_PATH}?ticket=${minted.ticket}`,
    expiresAt: minted.expiresAt.toISOString(),
  });
}

/**
 * GET /graphql/follow?ticket=…: the ticket's subscription as yoga's Server-Sent Events
 * (event: next … event: complete), run as the key that minted it. The stream ends after
 * `complete`; an EventSource reconnects on its own, and that reconnect is refused (the
 * ticket is spent) with a status that makes it stop, so a page should close it on
 * `complete`.
 */
export async function handleFollowRequest(req: IncomingMessage, res: ServerResponse, deps: TicketRouteDeps): Promise<void> {
  allowListedOrigin(req, res, deps.corsOrigins);
  if (req.method !== 'GET') return refuse(res, 405, 'METHOD_NOT_ALLOWED', 'Follow a ticket with GET (an EventSource).', { allow: 'GET' });
  const ticket = new URL(req.url ?? '/', 'http://gateway').searchParams.get('ticket') ?? '';
  const redeemed = ticket === '' ? undefined : deps.tickets.redeem(ticket);
  if (redeemed === undefined) {
    return refuse(res, 401, 'UNAUTHENTICATED', 'The ticket is unknown, already used or expired: POST /graphql/tickets for a new one.');
  }
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const response = await deps.yoga.fetch(
    'http://gateway/graphql',
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-request-id': String(req.headers['x-request-id'] ?? ''),
      },
      body: JSON.stringify(redeemed.operation),
      signal: abort.signal,
    },
    { [AUTHENTICATED_CALLER]: redeemed.caller },
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  // yoga's body may be @whatwg-node's own stream, which Readable.fromWeb does not take.
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  } catch {
    res.destroy();
  }
}

function subscriptionOf(body: Buffer): SubscriptionOperation | string {
  let input: unknown;
  try {
    input = JSON.parse(body.toString('utf8'));
  } catch {
    return 'The body is not JSON.';
  }
  const { query, variables, operationName } = (input ?? {}) as Record<string, unknown>;
  if (typeof query !== 'string') return 'Send { "query": "subscription …" }.';
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables)))
    return '"variables" must be an object.';
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return '"operationName" must be a string.';
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: 2_000 });
  } catch (error) {
    return `The query does not parse: ${(error as Error).message}`;
  }
  // Only a subscription: a ticket must not become a way to run a mutation by GET.
  if (getOperationAST(document, operationName ?? undefined)?.operation !== 'subscription') {
    return 'A ticket is for one subscription operation.';
  }
  return {
    query,
    ...(variables == null ? {} : { variables: variables as Record<string, unknown> }),
    ...(typeof operationName === 'string' ? { operationName } : {}),
  };
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** CORS for GATEWAY_CORS_ORIGINS only, as yoga.ts answers /graphql; other origins get none. */
function allowListedOrigin(req: IncomingMessage, res: ServerResponse, corsOrigins: readonly string[]): void {
  const origin = req.headers.origin;
  if (origin === undefined || !corsOrigins.includes(origin)) return;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-allow-credentials', 'true');
  res.setHeader('vary', 'Origin');
}

function hash(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}

function refuse(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify({ errors: [{ message, extensions: { code } }] }));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

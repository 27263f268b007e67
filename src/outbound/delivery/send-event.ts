import { Agent, request } from 'undici';
import { isIP } from 'node:net';
import { isInternal } from '../../lib/internal-addresses.ts';
import { signatureHeader, type SigningKey } from '../signing.ts';
import { guardedLookup, RefusedTargetError, type EndpointPolicy } from './endpoint.ts';

export type DeliveryOutcomeName = 'delivered' | 'failed' | 'timeout' | 'redirect' | 'refused-target' | 'unreachable';

export interface DeliveryResult {
  outcome: DeliveryOutcomeName;
  statusCode: number | null;
  durationMs: number;
  /** The answer's first characters, or the error in words: for the delivery log. */
  excerpt: string | null;
}

export interface OutgoingEvent {
  url: string;
  /** The webhook-id: the event's id. */
  id: string;
  body: string;
  /** Every secret valid now, newest first (signingKeys). */
  keys: readonly SigningKey[];
}

const EXCERPT_CHARS = 200;

/**
 * Posts one event as Standard Webhooks says: the three webhook-* headers, the body as JSON.
 * Only 2xx counts; a redirect is not followed (the target is the one the admin gave); a
 * receiver that answers too slowly is cut off at timeoutMs.
 */
export class EventSender {
  private readonly agent: Agent;

  constructor(
    private readonly policy: EndpointPolicy,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({
      connect: { lookup: guardedLookup(policy) as never, timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  async send(event: OutgoingEvent, now: () => number = Date.now): Promise<DeliveryResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const hostname = new URL(event.url).hostname.replace(/^\[(.*)\]$/, '$1');
    // An address written in the URL is connected to without a lookup: checked here instead.
    if (!this.policy.allowLocal && isIP(hostname) !== 0 && isInternal(hostname)) {
      return { outcome: 'refused-target', statusCode: null, durationMs: 0, excerpt: `${hostname} is a private or loopback address` };
    }
    const timestamp = Math.floor(now() / 1000);
    try {
      const answer = await request(event.url, {
        method: 'POST',
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'payout-gateway-events/1',
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(event.keys, event.id, timestamp, event.body),
        },
        body: event.body,
      });
      const text = await readExcerpt(answer.body);
      const { statusCode } = answer;
      const outcome: DeliveryOutcomeName =
        statusCode >= 200 && statusCode < 300 ? 'delivered' : statusCode >= 300 && statusCode < 400 ? 'redirect' : 'failed';
      const excerpt = outcome === 'redirect' ? `redirect to ${answer.headers.location ?? '(no location)'} not followed` : text;
      return { outcome, statusCode, durationMs: took(), excerpt };
    } catch (error) {
      return { outcome: classify(error), statusCode: null, durationMs: took(), excerpt: words(error) };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  let text = '';
  try {
    for await (const chunk of body) {
      text += chunk.toString('utf8');
      if (text.length >= EXCERPT_CHARS) break;
    }
  } finally {
    body.destroy();
  }
  return text === '' ? null : text.slice(0, EXCERPT_CHARS);
}

function causeOf(error: unknown): unknown {
  let current = error;
  while (current instanceof Error && current.cause !== undefined && !(current instanceof RefusedTargetError)) current = current.cause;
  return current;
}

function classify(error: unknown): DeliveryOutcomeName {
  const cause = causeOf(error);
  if (cause instanceof RefusedTargetError || error instanceof RefusedTargetError) return 'refused-target';
  const name = error instanceof Error ? error.name : '';
  const code = (error as { code?: string }).code ?? (cause as { code?: string }).code ?? '';
  if (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return 'timeout';
  return 'unreachable';
}

function words(error: unknown): string {
  const cause = causeOf(error);
  if (cause instanceof RefusedTargetError) return cause.message;
  if (classify(error) === 'timeout') return 'no answer in time: cut off';
  const code = (cause as { code?: string }).code ?? (error as { code?: string }).code;
  const said = code === undefined ? undefined : SOCKET_WORDS[code]?.(cause as SocketError);
  if (said !== undefined) return said.slice(0, EXCERPT_CHARS);
  const message = cause instanceof Error ? cause.message : String(error);
  return (code === undefined ? message : `${code}: ${message}`).slice(0, EXCERPT_CHARS);
}

type SocketError = { address?: string; port?: number; hostname?: string };
const where = (e: SocketError) => (e.address === undefined ? '' : ` by ${e.address}${e.port === undefined ? '' : `:${e.port}`}`);

/** The socket errors a receiver's admin meets, in words for the delivery log; others keep the system's. */
const SOCKET_WORDS: Readonly<Record<string, (e: SocketError) => string>> = {
  ECONNREFUSED: (e) => `connection refused${where(e)}`,
  ECONNRESET: () => 'the connection was reset before an answer',
  ENOTFOUND: (e) => (e.hostname === undefined ? 'host not found' : `host ${e.hostname} not found`),
  EHOSTUNREACH: (e) => `no route to ${e.address ?? 'the host'}`,
  UND_ERR_SOCKET: () => 'the connection closed before an answer',
};

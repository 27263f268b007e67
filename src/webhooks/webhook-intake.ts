import type { IncomingMessage, ServerResponse } from 'node:http';
import { isConnectionLost } from '../db/connection-lost.ts';
import type { PrismaClient } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { Webhook } from '../payout/models.ts';
import { verifyWebhookSignature } from '../payout/signature.ts';
import type { ApplyOutcome, PaymentTracker } from '../payments/tracker.ts';

export interface WebhookIntakeDeps {
  prisma: PrismaClient;
  tracker: PaymentTracker;
  agentId: string;
  secret: string;
  logger: Logger;
  /** Told the result of every delivery (observability/metrics.ts). */
  deliveries?: { onDelivery(result: string): void };
}

/** A status notification is a few hundred bytes; anything near this is not one. */
export const MAX_WEBHOOK_BYTES = 64 * 1024;

type Outcome = ApplyOutcome | 'amount-mismatch';

/**
 * POST /webhooks/payout. Verifies the HMAC signature before anything else, applies the
 * status (idempotent, never backwards), stores the delivery, and only then answers 2xx,
 * so a crash before the answer makes the upstream send it again.
 */
export async function handleWebhook(req: IncomingMessage, res: ServerResponse, deps: WebhookIntakeDeps): Promise<void> {
  if (req.method !== 'POST') return reply(res, 405, { error: 'use POST' }, { allow: 'POST' });
  const refuse = (result: string, status: number, body: unknown) => {
    deps.deliveries?.onDelivery(result);
    reply(res, status, body);
  };
  const text = await readCapped(req);
  if (text === undefined) return refuse('too-large', 413, { error: `body larger than ${MAX_WEBHOOK_BYTES} bytes` });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refuse('not-json', 400, { error: 'body is not JSON' });
  }
  const parsed = Webhook.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refuse('invalid', 400, { error: `not a Webhook: ${issue?.path.join('.') || 'body'}: ${issue?.message}` });
  }
  const webhook = parsed.data;
  const signature = req.headers.signature;
  if (!verifyWebhookSignature(deps.secret, webhook, typeof signature === 'string' ? signature : undefined)) {
    deps.logger.warn({ paymentId: webhook.paymentId }, 'webhook refused: missing or bad signature');
    return refuse('bad-signature', 401, { error: 'missing or invalid Signature' });
  }
  if (webhook.agentId !== deps.agentId) return refuse('wrong-agent', 400, { error: 'agentId is not this gateway’s agent' });

  let outcome: Outcome;
  try {
    outcome = await apply(webhook, deps);
    await deps.prisma.webhookDelivery.create({
      data: { paymentId: webhook.paymentId, status: webhook.status.value, body: json as object, outcome },
    });
  } catch (error) {
    // Not recorded: the partner repeats any answer but a 2xx (spec, Events), and applying a
    // status is idempotent, so a lost database connection loses nothing; a bug is logged loud.
    const lost = isConnectionLost(error);
    (lost ? deps.logger.warn.bind(deps.logger) : deps.logger.error.bind(deps.logger))(
      { err: lost ? { message: (error as Error).message } : error, paymentId: webhook.paymentId },
      'webhook not recorded; answered 503 so the partner sends it again',
    );
    deps.deliveries?.onDelivery('not-recorded');
    return reply(res, 503, { error: 'not recorded; send it again' }, { 'retry-after': '1' });
  }
  const log = outcome === 'amount-mismatch' ? deps.logger.error.bind(deps.logger) : deps.logger.info.bind(deps.logger);
  log({ paymentId: webhook.paymentId, status: webhook.status.value, outcome }, 'webhook received');
  deps.deliveries?.onDelivery(outcome);
  reply(res, 200, { outcome });
}

async function apply(webhook: Webhook, deps: WebhookIntakeDeps): Promise<Outcome> {
  const tracked = await deps.prisma.payment.findUnique({
    where: { paymentId: webhook.paymentId },
    select: { amount: true, currency: true },
  });
  if (tracked === null) return 'unknown-payment';
  if (tracked.amount.toFixed(2) !== webhook.amount.value || tracked.currency !== webhook.amount.currency) {
    return 'amount-mismatch';
  }
  return deps.tracker.applyUpstream(
    webhook.paymentId,
    { status: webhook.status, ...(webhook.billingDetails === undefined ? {} : { billingDetails: webhook.billingDetails }) },
    'webhook',
  );
}

async function readCapped(req: IncomingMessage): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_WEBHOOK_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_WEBHOOK_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import pLimit, { type LimitFunction } from 'p-limit';
import { databaseTrouble } from '../db/connection-lost.ts';
import type { PrismaClient } from '../db/database.ts';
import { backoffDelay, sleep } from '../lib/retry.ts';
import type { Logger } from '../log/logger.ts';
import { Webhook } from '../payout/models.ts';
import { verifyWebhookSignature } from '../payout/signature.ts';
import { compareMove, finalTracked } from '../payments/status.ts';
import type { ApplyOutcome, PaymentTracker } from '../payments/tracker.ts';
import type { TrackedStatus } from '../db/generated/enums.ts';
import { decimalText } from '../money/money-wire.ts';

export interface WebhookIntakeDeps {
  prisma: PrismaClient;
  tracker: PaymentTracker;
  agentId: string;
  secret: string;
  logger: Logger;
  /** Told the result of every delivery (observability/metrics.ts). */
  deliveries?: { onDelivery(result: string): void };
  /**
   * Settles the batch row of a payment seen final, when no worker holds it (batch/
   * settleRowsFromPayments, its batch told): a webhook that proves a row's outcome ends it,
   * whether it changed the payment or repeated what the record held.
   */
  settleRow?: (paymentId: string) => Promise<void>;
}

/**
 * At most this many webhooks use the database at once, of the pool's 10 connections (pg's
 * default), leaving the rest to GraphQL and the event target. A burst beyond them waits its
 * turn here instead of in Prisma's start of a transaction, which gives up after 2 s (P2028)
 * and still takes a connection for the start it abandoned: a burst after a restart then
 * refused most of itself, again at each of the partner's repeats, and never drained.
 */
const DATABASE_SLOTS = 4;
/** Past this many waiting, a webhook is refused at once (503, the partner repeats it) without touching the database. */
const MAX_WAITING = 5_000;
/** Tries of one webhook inside its request while the database is in trouble, the first included. */
const ATTEMPTS = 4;
/** Waits between those tries (lib/retry.ts): a restart or a burst of ended sessions is seconds long. */
const RETRY_BACKOFF = { baseMs: 200, maxMs: 2_000, floorMs: 50 };

/** One gate per intake (per gateway: tests run several in a process). */
const gates = new WeakMap<WebhookIntakeDeps, LimitFunction>();
const gateOf = (deps: WebhookIntakeDeps): LimitFunction => {
  let gate = gates.get(deps);
  if (gate === undefined) gates.set(deps, (gate = pLimit(DATABASE_SLOTS)));
  return gate;
};

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

  const gate = gateOf(deps);
  if (gate.pendingCount >= MAX_WAITING) {
    deps.logger.warn(
      { paymentId: webhook.paymentId, waiting: gate.pendingCount },
      'webhook not recorded: too many waiting for the database; answered 503 so the partner sends it again',
    );
    deps.deliveries?.onDelivery('not-recorded');
    return reply(res, 503, { error: 'busy; send it again' }, { 'retry-after': '1' });
  }
  let outcome: Outcome;
  try {
    outcome = await gate(() => recordRetrying(webhook, json, deps));
  } catch (error) {
    // Not recorded: the partner repeats any answer but a 2xx (spec, Events), and applying a
    // status is idempotent, so a database in trouble loses nothing; a bug is logged loud.
    const trouble = databaseTrouble(error);
    if (trouble !== undefined)
      deps.logger.warn(
        { reason: trouble.words, paymentId: webhook.paymentId },
        'webhook not recorded; answered 503 so the partner sends it again',
      );
    else
      deps.logger.error({ err: error, paymentId: webhook.paymentId }, 'webhook not recorded; answered 503 so the partner sends it again');
    deps.deliveries?.onDelivery('not-recorded');
    return reply(res, 503, { error: 'not recorded; send it again' }, { 'retry-after': '1' });
  }
  const log = outcome === 'amount-mismatch' ? deps.logger.error.bind(deps.logger) : deps.logger.info.bind(deps.logger);
  log({ paymentId: webhook.paymentId, status: webhook.status.value, outcome }, 'webhook received');
  deps.deliveries?.onDelivery(outcome);
  reply(res, 200, { outcome });
}

/**
 * Applies and records one webhook, again while the database is in trouble (a restart, ended
 * sessions, no connection free) up to ATTEMPTS: each step is idempotent, so a try that failed
 * half-way is repeated whole, and the partner is answered 2xx only once all of it is written.
 */
async function recordRetrying(webhook: Webhook, body: unknown, deps: WebhookIntakeDeps): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await apply(webhook, deps);
      await deps.prisma.webhookDelivery.create({
        data: { paymentId: webhook.paymentId, status: webhook.status.value, body: body as object, outcome },
      });
      return outcome;
    } catch (error) {
      const trouble = databaseTrouble(error);
      if (trouble === undefined || attempt >= ATTEMPTS) throw error;
      deps.logger.info(
        { reason: trouble.words, paymentId: webhook.paymentId, attempt },
        'webhook: the database is in trouble; trying again',
      );
      await sleep(backoffDelay(attempt - 1, RETRY_BACKOFF));
    }
  }
}

async function apply(webhook: Webhook, deps: WebhookIntakeDeps): Promise<Outcome> {
  const tracked = await deps.prisma.payment.findUnique({
    where: { paymentId: webhook.paymentId },
    select: { amount: true, currency: true, status: true, batchId: true, billingDetails: true },
  });
  if (tracked === null) return 'unknown-payment';
  if (decimalText(tracked.amount) !== webhook.amount.value || tracked.currency !== webhook.amount.currency) {
    return 'amount-mismatch';
  }
  const outcome =
    finalTracked.has(tracked.status) && !bringsNews(webhook, tracked)
      ? // A final status never changes (payments/status.ts): a repeat needs no transaction, only its row.
        compareMove(tracked.status, webhook.status.value as TrackedStatus) === 'same'
        ? 'duplicate'
        : 'stale'
      : await deps.tracker.applyUpstream(
          webhook.paymentId,
          { status: webhook.status, ...(webhook.billingDetails === undefined ? {} : { billingDetails: webhook.billingDetails }) },
          'webhook',
        );
  const final = finalTracked.has(tracked.status) || (outcome === 'applied' && finalTracked.has(webhook.status.value as TrackedStatus));
  if (tracked.batchId !== null && final) await deps.settleRow?.(webhook.paymentId);
  return outcome;
}

/** A repeat of the recorded status that brings billing details the record lacks is applied (they are filled in). */
function bringsNews(webhook: Webhook, tracked: { status: TrackedStatus; billingDetails: unknown }): boolean {
  return webhook.status.value === tracked.status && webhook.billingDetails !== undefined && tracked.billingDetails === null;
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

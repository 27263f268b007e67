import { userInfo } from 'node:os';
import type { PrismaClient } from '../db/database.ts';
import type { Prisma } from '../db/generated/client.ts';

/**
 * Actions that move or stop money, or override a safeguard. Stable: they are stored and
 * filtered on. `batch.discard` is a cancel of a batch that never ran (VALIDATED or
 * REJECTED), `batch.cancel` one of a RUNNING batch. `payment.execute` is an executePayment (or
 * createPayment's execute step) about to reach the upstream, or refused before it (detail
 * `refused`: PAYMENT_CANCELLED, SECOND_PERSON_REQUIRED, PAYEE_ACCOUNT_CHANGED), with the creator's key in
 * `createdBy` and, for a payment with a payee, `payee`, `payeeMark` and `includeChangedAccount` (never
 * the account). `batch.pause`/`batch.resume` are a person's; a pause for lack of funds and the resume
 * once the balance covers the rest are the worker's, recorded on the batch (pauseReason, pausedAt,
 * shortfall), not here. `batch.retry` names the batch's uploader and approver. `reconciliation.repair` is a payment moved
 * to the upstream's final status by a reconciliation (it commits with the move). `batch.review` is a
 * NEEDS_REVIEW row settled by what a read of its payment proved (line, paymentId, verdict), and
 * `batch.item.mark` one a person marked (line, paymentId, mark, reason); both commit with the row. `payment.cancel` is reserved: the
 * Payout API has no cancel, so nothing records it yet.
 */
export const auditActions = [
  'batch.approve',
  'batch.cancel',
  'batch.retry',
  'batch.import.forced',
  'batch.discard',
  'batch.dismiss',
  'batch.pause',
  'batch.resume',
  'batch.reschedule',
  'batch.forecast-short',
  'batch.review',
  'batch.item.mark',
  'payment.cancel',
  'payment.execute',
  'reconciliation.start',
  'reconciliation.repair',
  'events.subscribe',
  'events.update',
  'events.rotate',
  'events.delete',
  'events.replay',
  'events.resend',
  'events.disable',
  'api-key.create',
  'api-key.revoke',
] as const;
export type AuditAction = (typeof auditActions)[number];

/**
 * Who did it: an API key's identity (`key:NAME`, or `key:` and a keyed fingerprint for an
 * unnamed key) and role, "local" (key-less mode), or "cli" (the command line in single-user use).
 */
export interface AuditActor {
  actor: string;
  role: string | null;
  /** The HTTP request's x-request-id; null outside a request. */
  requestId: string | null;
  /** Facts about the actor added to every event's detail (the CLI's operating-system user). */
  detail?: AuditDetail;
}

/**
 * A few facts about the action. Only scalars, so no recipient, row or file content can be
 * passed in by accident (card data never belongs here).
 */
export type AuditDetail = Record<string, string | number | boolean | null>;

export interface AuditEntry {
  action: AuditAction;
  batchId?: string;
  paymentId?: string;
  detail?: AuditDetail;
}

/**
 * What a client says of itself (headers x-payout-client and x-payout-user, sent by the `payout`
 * CLI): recorded beside the key's identity as `via` and `user`, so the trail tells the CLI from
 * the page. Said by the client, not proven: the key is what is authenticated.
 */
export interface RequestClient {
  via: 'cli';
  user: string;
}

/** The x-payout-client / x-payout-user headers, when a known client sent them (anything else is ignored). */
export function requestClientOf(headers: { get(name: string): string | null }): RequestClient | undefined {
  if (headers.get('x-payout-client') !== 'cli') return undefined;
  const user = (headers.get('x-payout-user') ?? '').replace(/[^\w.@-]/g, '').slice(0, 64);
  return { via: 'cli', user };
}

/** The caller of a GraphQL request or a download as the audit names it. */
export function requestActor(context: {
  role: string;
  caller: string;
  via?: string | undefined;
  requestId?: string | undefined;
  client?: RequestClient | undefined;
}): AuditActor {
  // `through`: the key a person's request came with (`key:NAME`), or their session or token.
  const detail: AuditDetail = {};
  if (context.client !== undefined) Object.assign(detail, { user: context.client.user, via: context.client.via });
  if (context.via !== undefined) detail.through = context.via;
  const client = Object.keys(detail).length === 0 ? {} : { detail };
  return {
    actor: context.caller === 'anonymous' ? 'local' : context.caller,
    role: context.role,
    requestId: context.requestId ?? null,
    ...client,
  };
}

/**
 * The person at the terminal running `payout`: as the key it acts as (its identity and
 * role, like a request), or "cli" with no role in single-user use. The operating-system
 * user is added either way, and `via: cli` tells a key's CLI use from its requests.
 */
export function cliActor(caller?: { role: string; caller: string }): AuditActor {
  const user = userInfo().username;
  if (caller === undefined) return { actor: 'cli', role: null, requestId: null, detail: { user } };
  return { actor: caller.caller, role: caller.role, requestId: null, detail: { user, via: 'cli' } };
}

/** When a caller gave no actor (internal use, tests): still recorded, as "system". */
export const systemActor: AuditActor = { actor: 'system', role: null, requestId: null };

type AuditWriter = Pick<PrismaClient, 'auditEvent'> | Prisma.TransactionClient;

/** Writes one event; pass the transaction client so the event commits (or not) with the action. */
export async function recordAudit(db: AuditWriter, by: AuditActor, entry: AuditEntry): Promise<void> {
  const detail = { ...entry.detail, ...by.detail };
  await db.auditEvent.create({
    data: {
      action: entry.action,
      actor: by.actor,
      role: by.role,
      requestId: by.requestId,
      batchId: entry.batchId ?? null,
      paymentId: entry.paymentId ?? null,
      ...(Object.keys(detail).length === 0 ? {} : { detail }),
    },
  });
}

import { randomUUID } from 'node:crypto';
import { recordAudit, type AuditActor } from '../audit/audit.ts';
import { seal, type Envelope } from '../crypto/envelope.ts';
import type { DataKeyring } from '../crypto/data-keys.ts';
import { sqlOf, type PrismaClient } from '../db/database.ts';
import { endpointProblem } from './delivery/endpoint.ts';
import { listAttempts, type AttemptRow } from './delivery/sql/list-attempts.ts';
import { logAttempts } from './delivery/sql/log-attempts.ts';
import type { DeliveryObserver } from './delivery/event-deliverer.ts';
import type { DeliveryResult, EventSender } from './delivery/send-event.ts';
import { EventSubscriptionError } from './event-subscription-error.ts';
import { eventTypeNames, isEventType, type EventType } from './event-types.ts';
import { MAX_EVENTS_PER_REQUEST, type OutboundSettings } from './outbound-settings.ts';
import { openSecrets, secretContext } from './subscription-secrets.ts';
import { resendRequest } from './resend-request.ts';
import { offReasonText } from './subscription-states.ts';
import { newSigningSecret, signingKeys } from './signing.ts';
import { deleteSubscription } from './sql/delete-subscription.ts';
import { insertSubscription } from './sql/insert-subscription.ts';
import { listSubscriptions, readSubscription, type SubscriptionRow } from './sql/read-subscriptions.ts';
import { rewindSubscription } from './sql/rewind-subscription.ts';
import { rotateSecret } from './sql/rotate-secret.ts';
import { updateSubscription } from './sql/update-subscription.ts';

/** Bound into each sealed secret, so a secret copied to another subscription's row does not open. */

export interface NewSubscription {
  url: string;
  /** Omitted or empty: every type, including types added in later versions. */
  types?: readonly string[] | undefined;
  description?: string | undefined;
  /** 1 (the default): one event per request. Up to MAX_EVENTS_PER_REQUEST: a list per request. */
  eventsPerRequest?: number | undefined;
}

/**
 * Event subscriptions, managed by admins (GraphQL, the CLI, the page): the one writer of
 * EventSubscription. Secrets are made here, shown once, kept sealed with the data key.
 */
export class EventSubscriptions {
  constructor(
    /** observer: what counts deliveries (the gateway's /metrics): a resend is an attempt too. */
    private readonly deps: { prisma: PrismaClient; keyring: DataKeyring; sender: EventSender; observer?: DeliveryObserver },
    private readonly settings: OutboundSettings,
  ) {}

  list(): Promise<SubscriptionRow[]> {
    return listSubscriptions(sqlOf(this.deps.prisma));
  }

  async get(id: string): Promise<SubscriptionRow> {
    const row = await readSubscription(sqlOf(this.deps.prisma), uuidOrMissing(id));
    if (row === undefined) throw notFound(id);
    return row;
  }

  async create(input: NewSubscription, by: AuditActor): Promise<{ subscription: SubscriptionRow; secret: string }> {
    const types = checkTypes(input.types);
    const eventsPerRequest = checkEventsPerRequest(input.eventsPerRequest) ?? 1;
    await this.checkUrl(input.url);
    const id = randomUUID();
    const secret = newSigningSecret();
    await this.deps.prisma.$transaction(async (tx) => {
      await insertSubscription(sqlOf(tx), {
        id,
        url: input.url,
        types,
        description: input.description ?? '',
        eventsPerRequest,
        secret: this.seal(id, secret),
        createdBy: by.actor,
      });
      await recordAudit(tx, by, {
        action: 'events.subscribe',
        detail: { subscriptionId: id, url: input.url, types: types.join(' '), eventsPerRequest },
      });
    });
    return { subscription: await this.get(id), secret };
  }

  async update(
    id: string,
    change: {
      url?: string | undefined;
      types?: readonly string[] | undefined;
      description?: string | undefined;
      eventsPerRequest?: number | undefined;
      enabled?: boolean | undefined;
    },
    by: AuditActor,
  ): Promise<SubscriptionRow> {
    const types = change.types === undefined ? undefined : checkTypes(change.types);
    const eventsPerRequest = checkEventsPerRequest(change.eventsPerRequest);
    if (change.url !== undefined) await this.checkUrl(change.url);
    const found = await this.deps.prisma.$transaction(async (tx) => {
      const updated = await updateSubscription(sqlOf(tx), uuidOrMissing(id), {
        url: change.url,
        types,
        description: change.description,
        eventsPerRequest,
        enabled: change.enabled,
        disabledReason: change.enabled === false ? offReasonText('person', by.actor) : undefined,
      });
      if (updated) {
        const detail: Record<string, string | boolean | number> = { subscriptionId: id };
        if (change.url !== undefined) detail.url = change.url;
        if (types !== undefined) detail.types = types.join(' ');
        if (eventsPerRequest !== undefined) detail.eventsPerRequest = eventsPerRequest;
        if (change.enabled !== undefined) detail.enabled = change.enabled;
        await recordAudit(tx, by, { action: 'events.update', detail });
      }
      return updated;
    });
    if (!found) throw notFound(id);
    return this.get(id);
  }

  /** A new secret, shown once; the old one still signs beside it for EVENT_SECRET_OVERLAP_MS. */
  async rotateSecret(id: string, by: AuditActor): Promise<{ secret: string; previousValidUntil: Date }> {
    const secret = newSigningSecret();
    const until = await this.deps.prisma.$transaction(async (tx) => {
      const previousUntil = await rotateSecret(sqlOf(tx), uuidOrMissing(id), this.seal(id, secret), this.settings.secretOverlapMs);
      if (previousUntil !== undefined) await recordAudit(tx, by, { action: 'events.rotate', detail: { subscriptionId: id } });
      return previousUntil;
    });
    if (until === undefined) throw notFound(id);
    return { secret, previousValidUntil: until };
  }

  async delete(id: string, by: AuditActor): Promise<void> {
    const deleted = await this.deps.prisma.$transaction(async (tx) => {
      const done = await deleteSubscription(sqlOf(tx), uuidOrMissing(id));
      if (done) await recordAudit(tx, by, { action: 'events.delete', detail: { subscriptionId: id } });
      return done;
    });
    if (!deleted) throw notFound(id);
  }

  /** Every event of its types since `since` is delivered again, in order; returns how many lie ahead. */
  async replaySince(id: string, since: Date, by: AuditActor): Promise<number> {
    const backlog = await this.deps.prisma.$transaction(async (tx) => {
      const ahead = await rewindSubscription(sqlOf(tx), uuidOrMissing(id), since);
      if (ahead !== undefined)
        await recordAudit(tx, by, { action: 'events.replay', detail: { subscriptionId: id, since: since.toISOString() } });
      return ahead;
    });
    if (backlog === undefined) throw notFound(id);
    return backlog;
  }

  /**
   * One event sent again now, outside the ordered stream, with the id and sequence number it
   * was first sent with (a receiver that kept it drops it; one that lost it takes it); or, by
   * its webhook-id, a list as it was sent (resend-request.ts).
   */
  async resend(id: string, eventId: string, by: AuditActor): Promise<DeliveryResult> {
    const subscription = await this.get(id);
    const request = await resendRequest(sqlOf(this.deps.prisma), subscription.id, eventId);
    const result = await this.deps.sender.send({
      url: subscription.url,
      id: request.id,
      body: request.body,
      keys: signingKeys(await this.secretsOf(subscription.id)),
    });
    for (const _ of request.events) this.deps.observer?.delivered(subscription.id, result.outcome);
    await this.deps.prisma.$transaction(async (tx) => {
      await logAttempts(
        sqlOf(tx),
        subscription.id,
        request.events.map((event) => ({ ...event, attempt: 0, ...result })),
        true,
      );
      await recordAudit(tx, by, { action: 'events.resend', detail: { subscriptionId: id, eventId, outcome: result.outcome } });
    });
    return result;
  }

  attempts(id: string, limit: number, before: string | null): Promise<AttemptRow[]> {
    return listAttempts(sqlOf(this.deps.prisma), uuidOrMissing(id), limit, before);
  }

  /** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
  async secretsOf(id: string): Promise<string[]> {
    const row = await this.deps.prisma.eventSubscription.findUnique({
      where: { id },
      select: { secret: true, previousSecret: true, previousUntil: true },
    });
    if (row === null) throw notFound(id);
    return openSecrets(
      this.deps.keyring,
      id,
      row.secret,
      row.previousUntil !== null && row.previousUntil > new Date() ? row.previousSecret : null,
    );
  }

  private seal(id: string, secret: string): Envelope {
    return seal(this.deps.keyring, Buffer.from(secret, 'utf8'), secretContext(id));
  }

  private async checkUrl(url: string): Promise<void> {
    const problem = await endpointProblem(url, this.settings.endpoints);
    if (problem !== undefined) throw new EventSubscriptionError('EVENT_ENDPOINT_REFUSED', `url ${urlNamed(url)}${problem}`);
  }
}

/** The current secret and, when still valid, the previous one (newest first). */
function checkEventsPerRequest(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > MAX_EVENTS_PER_REQUEST) {
    throw new EventSubscriptionError(
      'EVENT_REQUEST_SIZE_INVALID',
      `eventsPerRequest ${value} must be a whole number from 1 to ${MAX_EVENTS_PER_REQUEST}`,
    );
  }
  return value;
}

function checkTypes(types: readonly string[] | undefined): EventType[] {
  // None named: every type, also those a later version adds (stored empty).
  if (types === undefined || types.length === 0) return [];
  const unknown = types.filter((t) => !isEventType(t));
  if (unknown.length > 0) {
    throw new EventSubscriptionError(
      'EVENT_TYPE_UNKNOWN',
      `unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => `"${t}"`).join(', ')}: one of ${eventTypeNames.join(', ')}`,
    );
  }
  return [...new Set(types as EventType[])];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id that is not a uuid names nothing: refused as not found rather than as a database cast error. */
function uuidOrMissing(id: string): string {
  if (!UUID.test(id)) throw notFound(id);
  return id;
}

function notFound(id: string): EventSubscriptionError {
  return new EventSubscriptionError('EVENT_SUBSCRIPTION_NOT_FOUND', `no event subscription ${id.slice(0, 64)}`);
}

/** The refused URL as the admin typed it, without what may be a secret (a user name, a password, the query). */
function urlNamed(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname} `;
  } catch {
    // endpointProblem quotes what is not a URL itself.
    return '';
  }
}

import type { SqlQuery } from '../../db/database.ts';
import { AFTER_CURSOR } from './after-cursor.ts';
import { subscriptionIsSql, subscriptionStates } from '../subscription-states.ts';

/** A subscription as admins see it (never its secret). */
export interface SubscriptionRow {
  id: string;
  url: string;
  types: string[];
  description: string;
  enabled: boolean;
  eventsPerRequest: number;
  disabledReason: string | null;
  disabledAt: Date | null;
  previousUntil: Date | null;
  createdAt: Date;
  createdBy: string;
  failingSince: Date | null;
  headAttempts: number;
  nextAttemptAt: Date;
  /** Events of its types not yet delivered (the head included). */
  backlog: number;
  /** When the oldest of those happened. */
  oldestUndeliveredAt: Date | null;
}

const columns = `s.id::text AS id, s.url, s.types, s.description, ${subscriptionIsSql(subscriptionStates.on, 's')} AS enabled, s."eventsPerRequest", s."disabledReason", s."disabledAt", s."previousUntil",
  s."createdAt", s."createdBy", s."failingSince", s."headAttempts", s."nextAttemptAt",
  (SELECT count(*)::int FROM "OutboundEvent" AS e WHERE ${AFTER_CURSOR}) AS backlog,
  (SELECT min(e."occurredAt") FROM "OutboundEvent" AS e WHERE ${AFTER_CURSOR}) AS "oldestUndeliveredAt"`;

export function listSubscriptions(query: SqlQuery): Promise<SubscriptionRow[]> {
  return query<SubscriptionRow>(`SELECT ${columns} FROM "EventSubscription" AS s ORDER BY s."createdAt", s.id`, []);
}

export async function readSubscription(query: SqlQuery, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await query<SubscriptionRow>(`SELECT ${columns} FROM "EventSubscription" AS s WHERE s.id = $1::uuid`, [id]);
  return row;
}

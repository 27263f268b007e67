import type { SqlQuery } from '../../db/database.ts';
import { subscriptionSetSql } from '../subscription-states.ts';

export async function updateSubscription(
  query: SqlQuery,
  id: string,
  change: {
    url?: string | undefined;
    types?: string[] | undefined;
    description?: string | undefined;
    eventsPerRequest?: number | undefined;
    enabled?: boolean | undefined;
    disabledReason?: string | undefined;
  },
): Promise<boolean> {
  const rows = await query(
    `UPDATE "EventSubscription" SET
       url = COALESCE($2, url), types = COALESCE($3::text[], types), description = COALESCE($4, description),
       "eventsPerRequest" = COALESCE($7, "eventsPerRequest"),
       ${subscriptionSetSql(
         [
           { when: '$5::boolean IS NULL', then: 'keep' },
           { when: '$5::boolean', then: { by: 'turn-on' } },
         ],
         { by: 'turn-off', reasonSql: '$6::text' },
       )},
       -- Enabled again: the head is tried now, and its failing time starts over.
       "nextAttemptAt" = CASE WHEN $5 THEN now() ELSE "nextAttemptAt" END,
       "failingSince" = CASE WHEN $5 THEN NULL ELSE "failingSince" END,
       "updatedAt" = now()
     WHERE id = $1::uuid RETURNING id`,
    [
      id,
      change.url ?? null,
      change.types ?? null,
      change.description ?? null,
      change.enabled ?? null,
      change.disabledReason ?? null,
      change.eventsPerRequest ?? null,
    ],
  );
  return rows.length === 1;
}

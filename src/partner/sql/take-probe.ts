import type { SqlQuery } from '../../db/database.ts';
import { breakerMove } from '../breaker-states.ts';

/** The table's move (breaker-states.ts) whose state this statement tests. */
const probes = breakerMove('probe-trouble');

/** The probe's turn for `owner`, when one is due and nobody else holds it; false otherwise. */
export async function takeProbe(query: SqlQuery, agentId: string, owner: string, holdMs: number): Promise<boolean> {
  const rows = await query(
    `UPDATE "PartnerBreaker" SET "probeOwner" = $2, "probeUntil" = now() + $3 * interval '1 millisecond', "updatedAt" = now()
     WHERE "agentId" = $1 AND state = $4::"BreakerState" AND "nextProbeAt" <= now()
       AND ("probeUntil" IS NULL OR "probeUntil" < now())
     RETURNING 1`,
    [agentId, owner, holdMs, probes.from],
  );
  return rows.length > 0;
}

import type { SqlQuery } from '../../db/database.ts';
import { breakerMove } from '../breaker-states.ts';

/** The table's move (breaker-states.ts) whose state this statement writes and tests. */
const closes = breakerMove('probe-answered');

/** The partner answered: calls go on. */
export async function closeBreaker(query: SqlQuery, agentId: string): Promise<void> {
  await query(
    `UPDATE "PartnerBreaker" SET state = $2::"BreakerState", "closedAt" = now(), "probeOwner" = NULL, "probeUntil" = NULL, "updatedAt" = now()
     WHERE "agentId" = $1 AND state <> $2::"BreakerState"`,
    [agentId, closes.to],
  );
}

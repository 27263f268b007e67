import type { BreakerReason } from '../../db/generated/enums.ts';
import type { SqlQuery } from '../../db/database.ts';
import { breakerMove } from '../breaker-states.ts';
import { breakerColumns, readBreaker, type BreakerRow } from './read-breaker.ts';

/** The table's move (breaker-states.ts) whose state this statement writes and tests. */
const opens = breakerMove('trouble');

/** Opens it unless it is open already (the first process to see the trouble decides the reason). */
export async function openBreaker(
  query: SqlQuery,
  agentId: string,
  reason: BreakerReason,
  code: string | null,
  firstProbeMs: number,
): Promise<BreakerRow> {
  const [row] = await query<BreakerRow>(
    `INSERT INTO "PartnerBreaker" ("agentId", state, reason, "lastCode", "openedAt", probes, "nextProbeAt", "updatedAt")
     VALUES ($1, $2::"BreakerState", $3::"BreakerReason", $4, now(), 0, now() + $5 * interval '1 millisecond', now())
     ON CONFLICT ("agentId") DO UPDATE SET
       state = EXCLUDED.state, reason = EXCLUDED.reason, "lastCode" = EXCLUDED."lastCode", "openedAt" = now(),
       probes = 0, "nextProbeAt" = EXCLUDED."nextProbeAt", "probeOwner" = NULL, "probeUntil" = NULL, "updatedAt" = now()
     WHERE "PartnerBreaker".state <> $2::"BreakerState"
     RETURNING ${breakerColumns}`,
    [agentId, opens.to, reason, code, firstProbeMs],
  );
  return row ?? (await readBreaker(query, agentId))!;
}

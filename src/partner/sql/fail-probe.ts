import type { BreakerReason } from '../../db/generated/enums.ts';
import type { SqlQuery } from '../../db/database.ts';

/** The probe found trouble: the next one waits `delayMs`. */
export async function probeFailed(
  query: SqlQuery,
  agentId: string,
  owner: string,
  reason: BreakerReason,
  code: string | null,
  delayMs: number,
): Promise<void> {
  await query(
    `UPDATE "PartnerBreaker" SET probes = probes + 1, reason = $3::"BreakerReason", "lastCode" = $4,
       "nextProbeAt" = now() + $5 * interval '1 millisecond', "probeOwner" = NULL, "probeUntil" = NULL, "updatedAt" = now()
     WHERE "agentId" = $1 AND "probeOwner" = $2`,
    [agentId, owner, reason, code, delayMs],
  );
}

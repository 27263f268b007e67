import type { SqlQuery } from '../../db/database.ts';

/**
 * The probe's turn given back unused by `owner` (its row sent nothing, or there was none):
 * due again after `delayMs`, so that a row that only reads is not claimed round and round.
 */
export async function releaseProbe(query: SqlQuery, agentId: string, owner: string, delayMs: number): Promise<void> {
  await query(
    `UPDATE "PartnerBreaker" SET "probeOwner" = NULL, "probeUntil" = NULL,
       "nextProbeAt" = GREATEST("nextProbeAt", now() + $3 * interval '1 millisecond'), "updatedAt" = now()
     WHERE "agentId" = $1 AND "probeOwner" = $2`,
    [agentId, owner, delayMs],
  );
}

import type { BreakerReason } from '../../db/generated/enums.ts';
import type { SqlQuery } from '../../db/database.ts';
import type { breakerStates } from '../breaker-states.ts';

/** The breaker as the database holds it, with the database's clock. */
export interface BreakerRow {
  state: (typeof breakerStates)[keyof typeof breakerStates];
  reason: BreakerReason | null;
  lastCode: string | null;
  openedAt: Date | null;
  closedAt: Date | null;
  probes: number;
  nextProbeAt: Date | null;
  dbNow: Date;
}

/** Opening returns the row in these columns too (open-breaker.ts). */
export const breakerColumns = `state, reason, "lastCode", "openedAt", "closedAt", probes, "nextProbeAt", now() AS "dbNow"`;

export async function readBreaker(query: SqlQuery, agentId: string): Promise<BreakerRow | null> {
  const [row] = await query<BreakerRow>(`SELECT ${breakerColumns} FROM "PartnerBreaker" WHERE "agentId" = $1`, [agentId]);
  return row ?? null;
}

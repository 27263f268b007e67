import type { BreakerReason } from '../../db/generated/enums.ts';
import type { SqlQuery } from '../../db/database.ts';
import { breakerMove, type breakerStates } from '../breaker-states.ts';

/** The table's moves (breaker-states.ts) whose states these statements write and test. */
const opens = breakerMove('trouble');
const probes = breakerMove('probe-trouble');
const closes = breakerMove('probe-answered');

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

const columns = `state, reason, "lastCode", "openedAt", "closedAt", probes, "nextProbeAt", now() AS "dbNow"`;

export async function readBreaker(query: SqlQuery, agentId: string): Promise<BreakerRow | null> {
  const [row] = await query<BreakerRow>(`SELECT ${columns} FROM "PartnerBreaker" WHERE "agentId" = $1`, [agentId]);
  return row ?? null;
}

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
     RETURNING ${columns}`,
    [agentId, opens.to, reason, code, firstProbeMs],
  );
  return row ?? (await readBreaker(query, agentId))!;
}

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

/** The partner answered: calls go on. */
export async function closeBreaker(query: SqlQuery, agentId: string): Promise<void> {
  await query(
    `UPDATE "PartnerBreaker" SET state = $2::"BreakerState", "closedAt" = now(), "probeOwner" = NULL, "probeUntil" = NULL, "updatedAt" = now()
     WHERE "agentId" = $1 AND state <> $2::"BreakerState"`,
    [agentId, closes.to],
  );
}

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

import type { SqlQuery } from '../../db/database.ts';
import { cancelledStatus } from '../../batch/index.ts';
import { DiscrepancyCode, TrackedStatus } from '../../db/generated/enums.ts';
import { sqlName } from '../../db/sql-list.ts';
import { discrepancyCodes, sqlList } from '../discrepancy-codes.ts';
import { heldRun } from './held-run.ts';
import { cancelledButExecuted, gatewayFinal, missingUpstream, notFinal, pairsSql, statusDiffers, upstreamFinal } from './pairs.ts';

const completed = sqlName(TrackedStatus.COMPLETED);
/** Refused at create: never existed upstream. */
const rejected = sqlName(TrackedStatus.REJECTED);

/**
 * The whole comparison in one statement: a discrepancy record per payment and code (the
 * table in discrepancy-codes.ts), read and written by the database, so memory in this
 * process does not grow with the period. $4 is the stuck cutoff, $5 the lease token.
 */
const insertSql = `
WITH ${heldRun('$1', '$5')},
${pairsSql},
inserted AS (
INSERT INTO "ReconciliationDiscrepancy"
  ("runId", code, "paymentId", "batchId", "batchRow", "gatewayValue", "upstreamValue", "gatewayStatus", "upstreamStatus",
   "finalSide", amount, currency, "paymentCreatedAt")
SELECT $1, c.code::"DiscrepancyCode", pr."paymentId", pr."batchId", pr."batchRow", c.gateway_value, c.upstream_value,
  pr.g_status, pr.u_status, c.final_side, COALESCE(pr.u_amount, pr.g_amount), COALESCE(pr.u_currency, pr.g_currency),
  COALESCE(pr.u_created, pr.g_created)
FROM pairs AS pr
CROSS JOIN LATERAL (VALUES
  (${sqlName(DiscrepancyCode.MISSING_UPSTREAM)}, ${missingUpstream}, pr.g_status, NULL, NULL),
  (${sqlName(DiscrepancyCode.UNKNOWN_TO_GATEWAY)}, in_upstream AND NOT in_gateway, NULL, pr.u_status, NULL),
  -- A cancelled row is final on the gateway's side: never UPSTREAM, so never repaired.
  (${sqlName(DiscrepancyCode.STATUS_DIFFERS)}, ${statusDiffers}, CASE WHEN ${cancelledButExecuted} THEN '${cancelledStatus}' ELSE pr.g_status END, pr.u_status,
    CASE WHEN ${cancelledButExecuted} THEN (CASE WHEN ${upstreamFinal} THEN 'BOTH' ELSE 'GATEWAY' END)
         WHEN ${upstreamFinal} AND ${gatewayFinal} THEN 'BOTH' WHEN ${upstreamFinal} THEN 'UPSTREAM'
         WHEN ${gatewayFinal} THEN 'GATEWAY' ELSE 'NEITHER' END),
  (${sqlName(DiscrepancyCode.AMOUNT_DIFFERS)}, in_upstream AND in_gateway AND (g_amount <> u_amount OR g_currency <> u_currency),
    pr.g_amount::text || ' ' || pr.g_currency, pr.u_amount::text || ' ' || pr.u_currency, NULL),
  (${sqlName(DiscrepancyCode.COMMISSION_DIFFERS)}, in_upstream AND in_gateway AND g_commission IS NOT NULL AND g_commission IS DISTINCT FROM u_commission,
    pr.g_commission::text, pr.u_commission::text, NULL),
  (${sqlName(DiscrepancyCode.RECIPIENT_DIFFERS)}, in_upstream AND in_gateway AND (g_provider <> u_provider OR g_recipient <> u_recipient),
    pr.g_provider || ' ' || pr.g_recipient::text, pr.u_provider || ' ' || pr.u_recipient::text, NULL),
  (${sqlName(DiscrepancyCode.NOT_FINAL)}, ${notFinal}, CASE WHEN g_cancelled THEN '${cancelledStatus}' ELSE pr.g_status END, pr.u_status, NULL)
) AS c(code, hit, gateway_value, upstream_value, final_side)
WHERE c.hit
  -- Only while this execution holds the run: one taken over writes nothing here.
  AND EXISTS (SELECT 1 FROM held)
-- Ids in the order they are listed and exported: by code as the table lists them, then paymentId.
ORDER BY array_position(ARRAY[${sqlList(discrepancyCodes)}], c.code), pr."paymentId"
RETURNING 1)
SELECT count(*)::int AS count FROM inserted`;

/**
 * Each side's count and sums for the period (every status, and COMPLETED alone), and the
 * payments on both sides with no discrepancy. The gateway's side leaves out payments it
 * knows were never created upstream (REJECTED).
 */
const totalsSql = `
WITH ${pairsSql}
SELECT
  count(*) FILTER (WHERE in_upstream AND u_created >= $2 AND u_created < $3)::int AS "upstreamCount",
  COALESCE(sum(u_amount) FILTER (WHERE in_upstream AND u_created >= $2 AND u_created < $3), 0)::text AS "upstreamAmount",
  COALESCE(sum(u_commission) FILTER (WHERE in_upstream AND u_created >= $2 AND u_created < $3), 0)::text AS "upstreamCommission",
  count(*) FILTER (WHERE in_upstream AND u_created >= $2 AND u_created < $3 AND u_status = ${completed})::int AS "upstreamPaidCount",
  COALESCE(sum(u_amount) FILTER (WHERE in_upstream AND u_created >= $2 AND u_created < $3 AND u_status = ${completed}), 0)::text AS "upstreamPaidAmount",
  count(*) FILTER (WHERE in_gateway AND g_status <> ${rejected})::int AS "gatewayCount",
  COALESCE(sum(g_amount) FILTER (WHERE in_gateway AND g_status <> ${rejected}), 0)::text AS "gatewayAmount",
  COALESCE(sum(g_commission) FILTER (WHERE in_gateway AND g_status <> ${rejected}), 0)::text AS "gatewayCommission",
  count(*) FILTER (WHERE in_gateway AND g_status = ${completed})::int AS "gatewayPaidCount",
  COALESCE(sum(g_amount) FILTER (WHERE in_gateway AND g_status = ${completed}), 0)::text AS "gatewayPaidAmount",
  count(*) FILTER (WHERE in_upstream AND in_gateway AND NOT EXISTS (
    SELECT 1 FROM "ReconciliationDiscrepancy" AS d WHERE d."runId" = $1 AND d."paymentId" = pairs."paymentId"))::int AS "matchedCount"
FROM pairs`;

export interface PeriodTotals {
  upstreamCount: number;
  upstreamAmount: string;
  upstreamCommission: string;
  upstreamPaidCount: number;
  upstreamPaidAmount: string;
  gatewayCount: number;
  gatewayAmount: string;
  gatewayCommission: string;
  gatewayPaidCount: number;
  gatewayPaidAmount: string;
  matchedCount: number;
}

export interface CompareRun {
  id: string;
  startsAt: Date;
  endsAt: Date;
  /** Payments created before this and still not final are NOT_FINAL. */
  stuckBefore: Date;
  /** The execution's lease (run-lease.ts): nothing is written once another holds the run. */
  leaseToken: string;
}

/** Writes the run's discrepancies; returns how many. */
export async function insertDiscrepancies(query: SqlQuery, run: CompareRun): Promise<number> {
  const rows = await query<{ count: number }>(insertSql, [run.id, run.startsAt, run.endsAt, run.stuckBefore, run.leaseToken]);
  return rows[0]?.count ?? 0;
}

export async function periodTotals(query: SqlQuery, run: Omit<CompareRun, 'stuckBefore' | 'leaseToken'>): Promise<PeriodTotals> {
  const rows = await query<PeriodTotals>(totalsSql, [run.id, run.startsAt, run.endsAt]);
  return rows[0]!;
}

/** Discrepancies per code, for the run's record and /metrics. */
export async function countsByCode(query: SqlQuery, runId: string): Promise<Record<string, number>> {
  const rows = await query<{ code: string; count: number }>(
    'SELECT code::text AS code, count(*)::int AS count FROM "ReconciliationDiscrepancy" WHERE "runId" = $1 GROUP BY code',
    [runId],
  );
  return Object.fromEntries(rows.map((row) => [row.code, row.count]));
}

import { cancelledStatus } from '../../batch/index.ts';
import { TrackedStatus } from '../../db/generated/enums.ts';
import { sqlName } from '../../db/sql-list.ts';
import {
  createdUpstreamStatuses,
  executedUpstreamStatuses,
  finalStatuses,
  gatewayUnsettledStatuses,
  sqlList,
  upstreamWaitingStatuses,
} from '../discrepancy-codes.ts';

/** The payment's batch row was cancelled (batch.cancelled-after-create, or an older row cancelled READY). */
const cancelledRow = (paymentId: string) =>
  `EXISTS (SELECT 1 FROM "BatchItem" AS bi WHERE bi."paymentId" = ${paymentId} AND bi.status = '${cancelledStatus}')`;

/**
 * Every payment of the period with both sides' views, as SQL CTEs ($1 runId, $2 startsAt,
 * $3 endsAt): the upstream's payments created in the period with the gateway's record of
 * them (whatever its date), then the gateway's payments of the period the first part did
 * not take, with the upstream's copy when the widened read has one. A payment is placed in
 * the period by the upstream's creation time when known, else the gateway's record time.
 * g_cancelled: the gateway's batch row for it was cancelled, so it must never be executed.
 */
export const pairsSql = `
u AS (SELECT * FROM "ReconciliationUpstreamPayment" WHERE "runId" = $1),
g AS (
  SELECT * FROM "Payment" AS p
  WHERE (p."upstreamCreatedAt" >= $2 AND p."upstreamCreatedAt" < $3)
     OR (p."upstreamCreatedAt" IS NULL AND p."createdAt" >= $2 AND p."createdAt" < $3)
),
pairs AS (
  SELECT u."paymentId", TRUE AS in_upstream, p."paymentId" IS NOT NULL AS in_gateway,
    u.status AS u_status, u.amount AS u_amount, u.currency AS u_currency, u.commission AS u_commission,
    u."providerCode" AS u_provider, u.recipient AS u_recipient, u."createdAt" AS u_created,
    p.status::text AS g_status, p.amount AS g_amount, p.currency AS g_currency, p.commission AS g_commission,
    p."providerCode" AS g_provider, p.recipient AS g_recipient, p."createdAt" AS g_created, p."batchId", p."batchRow",
    p."batchId" IS NOT NULL AND ${cancelledRow('u."paymentId"')} AS g_cancelled
  FROM u LEFT JOIN "Payment" AS p ON p."paymentId" = u."paymentId"
  WHERE u."inPeriod"
  UNION ALL
  SELECT g."paymentId", u."paymentId" IS NOT NULL, TRUE,
    u.status, u.amount, u.currency, u.commission, u."providerCode", u.recipient, u."createdAt",
    g.status::text, g.amount, g.currency, g.commission, g."providerCode", g.recipient, g."createdAt", g."batchId", g."batchRow",
    g."batchId" IS NOT NULL AND ${cancelledRow('g."paymentId"')}
  FROM g LEFT JOIN u ON u."paymentId" = g."paymentId"
  WHERE u."paymentId" IS NULL OR NOT u."inPeriod"
)`;

/** Conditions on a row of pairs, shared by the candidate reads and the compare. */
export const missingUpstream = `(NOT in_upstream AND g_status IN (${sqlList(createdUpstreamStatuses)}))`;
/**
 * A cancelled row's payment that was executed after all (upstream, or as the gateway
 * recorded it): a difference whatever the statuses say, the row being CANCELLED.
 */
export const cancelledButExecuted = `(in_upstream AND in_gateway AND g_cancelled
  AND (u_status IN (${sqlList(executedUpstreamStatuses)}) OR g_status IN (${sqlList(executedUpstreamStatuses)})))`;
export const statusDiffers = `(in_upstream AND in_gateway AND (g_status <> u_status OR ${cancelledButExecuted}))`;
export const upstreamFinal = `(u_status IN (${sqlList(finalStatuses)}))`;
export const gatewayFinal = `(g_status IN (${sqlList(finalStatuses)}))`;
/**
 * $4: the stuck cutoff (created before it and not final). A cancelled row's payment still
 * waiting upstream is reported at once: it could be executed until it expires.
 */
export const notFinal = `(
  (in_upstream AND u_status IN (${sqlList(upstreamWaitingStatuses)}) AND (u_created < $4 OR (g_cancelled AND u_status <> ${sqlName(TrackedStatus.IN_PROGRESS)})))
  OR (NOT in_upstream AND g_status IN (${sqlList(gatewayUnsettledStatuses)}) AND g_created < $4))`;

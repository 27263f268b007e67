import type { SqlQuery } from '../../../db/database.ts';
import { outboxCte } from '../../../outbound/index.ts';
import { batchEventSelect } from '../../events/sql/batch-events-sql.ts';
import type { BatchStatus } from '../../../db/generated/enums.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { retriedPaymentIdSql } from '../../ids.ts';
import { batchStates, pauseReasons, payingStates, statesFrom } from '../../states/batch-states.ts';
import { rowFeeMinorSql, tariffsSql, type TariffParams } from './commission-estimate.ts';
import { unfundedRowSql, unsentItemStatuses, waitingStatus } from '../../states/row-states.ts';

const FUNDS = `${sqlName(pauseReasons.funds)}::"BatchPauseReason"`;

/** What batches still need from the balance, in minor units (kopecks). */
export interface FundsNeed {
  amountMinor: bigint;
  commissionMinor: bigint;
}

/**
 * The rows of `batchIds` (and, with `withPaying`, of every batch paying now) whose money has
 * not left yet, and their commission at each provider's tariff (sql/commission-estimate.ts,
 * docs/decisions/0019-commission-estimate.md).
 */
const needSql = `
WITH rows AS (
  SELECT i.amount, i."providerCode" FROM "BatchItem" AS i
  WHERE i.status IN (${sqlList(unsentItemStatuses)})
    AND (i."batchId" = ANY($1::text[])
      OR ($2::bool AND i."batchId" IN (SELECT b.id FROM "Batch" AS b WHERE b.status::text = ANY($6::text[])))
      -- Scheduled batches due no later than the one weighed: money goes in payAt order.
      OR ($10::timestamptz IS NOT NULL AND NOT i."batchId" = ANY($1::text[]) AND i."batchId" IN (
        SELECT b.id FROM "Batch" AS b WHERE b.status = ${sqlName(batchStates.scheduled)} AND b."payAt" <= $10::timestamptz)))
  UNION ALL
  -- Rows an approval is about to start: still PENDING (or DUPLICATE, when included).
  SELECT i.amount, i."providerCode" FROM "BatchItem" AS i WHERE i."batchId" = $3::text AND i.status::text = ANY($4::text[])
), ${tariffsSql('rows', { providers: '$7', percents: '$8', minimums: '$9', defaultPercent: '$5' }).trimStart()}
SELECT (COALESCE(sum(rows.amount), 0) * 100)::bigint::text AS "amountMinor",
  COALESCE(sum(${rowFeeMinorSql('rows.amount', 't', '$5')}), 0)::bigint::text AS "commissionMinor"
FROM rows LEFT JOIN tariffs AS t ON t.provider = rows."providerCode"`;

export async function fundsNeed(
  query: SqlQuery,
  need: {
    batchIds: string[];
    /** Add the rows of every batch in `payingStates`. */
    withPaying: boolean;
    payingStates: readonly BatchStatus[];
    starting?: { batchId: string; statuses: readonly string[] };
    /** Add the rows of every SCHEDULED batch (but `batchIds`) due at or before this time. */
    scheduledUntil?: Date | null;
    tariffs: TariffParams;
  },
): Promise<FundsNeed> {
  const [row] = await query<{ amountMinor: string; commissionMinor: string }>(needSql, [
    need.batchIds,
    need.withPaying,
    need.starting?.batchId ?? null,
    [...(need.starting?.statuses ?? [])],
    need.tariffs.defaultPercent,
    [...need.payingStates],
    need.tariffs.providers,
    need.tariffs.percents,
    need.tariffs.minimums,
    need.scheduledUntil ?? null,
  ]);
  return { amountMinor: BigInt(row?.amountMinor ?? '0'), commissionMinor: BigInt(row?.commissionMinor ?? '0') };
}

/**
 * The partner answered INSUFFICIENT_FUNDS for rows of these batches: each batch still paying
 * (or just ended by those rows) is PAUSED for FUNDS, and its rows that failed for lack of
 * funds (no money moved) go back to PENDING under new paymentIds, to be paid on resume. One
 * statement; returns the batches paused now.
 */
const pauseSql = `
WITH paused AS (
  UPDATE "Batch" AS b SET status = ${sqlName(batchStates.paused)}::"BatchStatus", "pauseReason" = ${FUNDS}, "pausedAt" = now(), "pausedBy" = NULL,
    "fundsCheckAt" = now() + $2 * interval '1 millisecond', "finishedAt" = NULL
  WHERE b.id = ANY($1::text[]) AND b.status IN (${sqlList(statesFrom('funds', batchStates.paused))})
  RETURNING b.id
), requeued AS (${requeueSql('$1::text[]')}),
${outboxCte('paused_events', batchEventSelect('batch.paused', 'paused', `'reason', ${FUNDS}::text`))}
SELECT id FROM paused`;

/** FAILED-for-funds rows of paused-for-funds batches: a new attempt, PENDING. */
function requeueSql(batchIds: string): string {
  return `
  UPDATE "BatchItem" AS i
  SET attempt = attempt + 1, "paymentId" = ${retriedPaymentIdSql('"batchId"', 'line', '(attempt + 1)')}, status = ${sqlName(waitingStatus)}::"BatchItemStatus",
    "errorCode" = NULL, "errorMessage" = NULL, "billingDetails" = NULL, retries = 0, "notBefore" = NULL, "finishedAt" = NULL,
    "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
  WHERE i."batchId" = ANY(${batchIds}) AND ${unfundedRowSql('i')}
    AND EXISTS (SELECT 1 FROM "Batch" AS b WHERE b.id = i."batchId" AND (b.status IN (${sqlList(payingStates)}) OR (b.status = ${sqlName(batchStates.paused)} AND b."pauseReason" = ${FUNDS})))
  RETURNING i.id`;
}

export async function pauseForFunds(query: SqlQuery, batchIds: string[], firstCheckMs: number): Promise<string[]> {
  const rows = await query<{ id: string }>(pauseSql, [batchIds, firstCheckMs]);
  return rows.map((row) => row.id);
}

/**
 * Running batches with a row that failed for lack of funds and can be paid again, paused for
 * funds: the sweep's catch-up for a worker that wrote such a row and died before its pause.
 */
export async function pauseUnfundedBatches(query: SqlQuery, firstCheckMs: number): Promise<string[]> {
  const batches = await query<{ id: string }>(
    `SELECT DISTINCT u."batchId" AS id FROM "Batch" AS b JOIN "BatchItem" AS u ON u."batchId" = b.id
     WHERE b.status IN (${sqlList(payingStates)}) AND ${unfundedRowSql('u')}`,
    [],
  );
  return batches.length === 0
    ? []
    : pauseForFunds(
        query,
        batches.map((b) => b.id),
        firstCheckMs,
      );
}

/** Rows that failed for funds in these (running or paused-for-funds) batches, put back to be paid. */
export async function requeueUnfunded(query: SqlQuery, batchIds: string[]): Promise<number> {
  return (await query(requeueSql('$1::text[]'), [batchIds])).length;
}

/** Batches paused for funds whose balance check is due, taken for `holdMs` so one process checks each. */
export async function takeFundsChecks(query: SqlQuery, holdMs: number): Promise<Array<{ id: string; pausedAt: Date }>> {
  return query(
    `UPDATE "Batch" SET "fundsCheckAt" = now() + $1 * interval '1 millisecond'
     WHERE status = ${sqlName(batchStates.paused)} AND "pauseReason" = ${FUNDS} AND "fundsCheckAt" <= now()
     RETURNING id, "pausedAt"`,
    [holdMs],
  );
}

/** Still short: what is missing now, and when to look again. */
export async function stillShort(query: SqlQuery, batchId: string, shortfallMinor: bigint | null, nextCheckMs: number): Promise<void> {
  await query(
    `UPDATE "Batch" SET shortfall = COALESCE($2::numeric / 100, shortfall), "fundsCheckAt" = now() + $3 * interval '1 millisecond'
     WHERE id = $1 AND status = ${sqlName(batchStates.paused)} AND "pauseReason" = ${FUNDS}`,
    [batchId, shortfallMinor?.toString() ?? null, nextCheckMs],
  );
}

/** The balance covers the rest: running again, by itself. Returns whether it resumed. */
export async function resumeFunded(query: SqlQuery, batchId: string): Promise<boolean> {
  const rows = await query(
    `WITH resumed AS (
       UPDATE "Batch" SET status = ${sqlName(batchStates.running)}::"BatchStatus", shortfall = NULL, "fundsCheckAt" = NULL
       WHERE id = $1 AND status IN (${sqlList(statesFrom('funds', batchStates.running))}) AND "pauseReason" = ${FUNDS}
       RETURNING id
     ), requeued AS (${requeueSql('ARRAY(SELECT id FROM resumed)')}),
     ${outboxCte('resumed_events', batchEventSelect('batch.resumed', 'resumed', `'by', 'funds'`))}
     SELECT id FROM resumed`,
    [batchId],
  );
  return rows.length > 0;
}

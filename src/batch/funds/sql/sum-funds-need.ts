import type { SqlQuery } from '../../../db/database.ts';
import type { BatchStatus } from '../../../db/generated/enums.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { batchStates } from '../../states/batch-states.ts';
import { rowFeeMinorSql, tariffsSql, type TariffParams } from './commission-estimate.ts';
import { unsentItemStatuses } from '../../states/row-states.ts';

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

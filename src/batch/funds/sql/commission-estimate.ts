import type { CommissionTariffs } from '../../../config/commission-tariffs.ts';
import { fromMinorUnits } from '../../../money/money.ts';

/**
 * The commission the partner will charge for rows not paid yet, per provider as its tariff
 * does: a rate of the amount rounded up to the kopeck, never below a minimum fee
 * (docs/decisions/0019-commission-estimate.md). A provider's tariff is the configured one
 * (COMMISSION_TARIFFS) when there is one, else learned from the last 35 days of payments:
 *
 * - the minimum is the smallest fee charged (the partner never charges less);
 * - the rate comes only from payments charged more than that minimum (a minimum fee on a
 *   small amount is no rate): the highest rate that, rounded up, gives each of their charges
 *   exactly, when one does (the lowest commission / amount); when their charges agree on no
 *   one rate (the tariff changed, a charge was corrected), the 90th percentile of
 *   commission / amount, so one odd charge does not become everyone's rate;
 * - with no payment above the minimum the rate is unknown: COMMISSION_ESTIMATE_PERCENT, but
 *   no more than the lowest commission / amount seen (a payment charged the minimum proves
 *   the rate is at most that);
 * - a provider with no history: COMMISSION_ESTIMATE_PERCENT and no minimum.
 */
export interface TariffParams {
  /** The configured tariffs: provider codes, percents, minimums in RUB (three parallel arrays). */
  providers: string[];
  percents: string[];
  minimums: string[];
  defaultPercent: string;
}

export function tariffParams(tariffs: CommissionTariffs, defaultPercent: string): TariffParams {
  const entries = Object.entries(tariffs);
  return {
    providers: entries.map(([provider]) => provider),
    percents: entries.map(([, tariff]) => tariff.percent),
    minimums: entries.map(([, tariff]) => fromMinorUnits(tariff.minimumMinor)),
    defaultPercent,
  };
}

/**
 * CTEs that end in `tariffs (provider, rate, minimum)`, for the providers of `rowsCte`
 * (a CTE with a "providerCode" column). `$n` placeholders: configured providers (text[]),
 * their percents (numeric[]), their minimums (numeric[]), the default percent (numeric).
 */
export function tariffsSql(rowsCte: string, p: { providers: string; percents: string; minimums: string; defaultPercent: string }): string {
  return `
configured AS (
  SELECT c.provider, c.percent / 100 AS rate, c.minimum
  FROM unnest(${p.providers}::text[], ${p.percents}::numeric[], ${p.minimums}::numeric[]) AS c(provider, percent, minimum)
), history AS (
  SELECT pay."providerCode" AS provider, pay.amount, pay.commission FROM "Payment" AS pay
  WHERE pay.commission > 0 AND pay.amount > 0 AND pay."createdAt" > now() - interval '35 days'
    AND pay."providerCode" IN (SELECT DISTINCT "providerCode" FROM ${rowsCte})
    AND pay."providerCode" <> ALL(${p.providers}::text[])
), floors AS (
  SELECT provider, min(commission) AS minimum FROM history GROUP BY provider
), bounds AS (
  SELECT h.provider, f.minimum,
    -- A fee rounded up is at least rate x amount: every charge bounds the rate from above...
    min(h.commission / h.amount) AS "rateAtMost",
    -- ...and one above the minimum, less a kopeck, is below rate x amount.
    max((h.commission - 0.01) / h.amount) FILTER (WHERE h.commission > f.minimum) AS "rateAbove",
    percentile_disc(0.9) WITHIN GROUP (ORDER BY h.commission / h.amount) FILTER (WHERE h.commission > f.minimum) AS "rateP90"
  FROM history AS h JOIN floors AS f ON f.provider = h.provider
  GROUP BY h.provider, f.minimum
), tariffs AS (
  SELECT provider, rate, minimum FROM configured
  UNION ALL
  SELECT provider,
    CASE
      WHEN "rateP90" IS NULL THEN LEAST(${p.defaultPercent}::numeric / 100, "rateAtMost")
      WHEN "rateAbove" < "rateAtMost" THEN "rateAtMost"
      ELSE "rateP90"
    END,
    minimum
  FROM bounds
)`;
}

/**
 * The one per-row fee rule, in kopecks: the rate of the amount rounded up, at least the
 * minimum, as the partner charges (the sandbox's tariffCommission). `tariff` is a row of
 * `tariffs` joined to the row, or NULLs for a provider with no tariff.
 */
export function rowFeeMinorSql(amount: string, tariff: string, defaultPercent: string): string {
  return `GREATEST(ceil(${amount} * COALESCE(${tariff}.rate, ${defaultPercent}::numeric / 100) * 100), COALESCE(${tariff}.minimum, 0) * 100)`;
}

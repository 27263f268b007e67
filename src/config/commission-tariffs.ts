import { lenientToMinorUnits, LENIENT_MONEY_VALUE } from '../money/money.ts';

/**
 * A provider's commission as the partner's contract states it: a percentage of the amount,
 * rounded up to the kopeck, never below a minimum fee. The funds checks take it instead of
 * what they learn from history (docs/decisions/0019-commission-estimate.md).
 */
export interface CommissionTariff {
  /** Percent of the amount, as written ("1.5", "0.75"). */
  percent: string;
  /** The minimum fee, in minor units (kopecks). */
  minimumMinor: bigint;
}

/** By provider code. */
export type CommissionTariffs = Readonly<Record<string, CommissionTariff>>;

const PROVIDER = /^[a-z0-9][a-z0-9-]{0,63}$/;
const PERCENT = /^(0|[1-9]\d?)(\.\d{1,4})?$/;

/**
 * `COMMISSION_TARIFFS`: `PROVIDER:PERCENT%:MINIMUM`, comma-separated, e.g.
 * `bank-card-russia:1.5%:25.00,sbp-b2c:0.7%:10`. Every problem is reported, each by its entry.
 */
export function parseCommissionTariffs(raw: string): { tariffs: Record<string, CommissionTariff>; problems: string[] } {
  const tariffs: Record<string, CommissionTariff> = {};
  const problems: string[] = [];
  for (const [index, entry] of raw.split(',').entries()) {
    const parts = entry
      .trim()
      .split(':')
      .map((part) => part.trim());
    const where = `entry ${index + 1} "${entry.trim()}"`;
    const [provider = '', percentText = '', minimum = ''] = parts;
    const percent = percentText.endsWith('%') ? percentText.slice(0, -1) : percentText;
    if (parts.length !== 3) {
      problems.push(`${where} is not PROVIDER:PERCENT%:MINIMUM, such as bank-card-russia:1.5%:25.00`);
    } else if (!PROVIDER.test(provider)) {
      problems.push(`${where}: "${provider}" is not a provider code, such as bank-card-russia`);
    } else if (!PERCENT.test(percent)) {
      problems.push(`${where}: "${percentText}" is not a percentage below 100 with up to four decimals, such as 1.5%`);
    } else if (!LENIENT_MONEY_VALUE.test(minimum)) {
      problems.push(`${where}: "${minimum}" is not a minimum fee in RUB, such as 25.00 or 0`);
    } else if (Object.hasOwn(tariffs, provider)) {
      problems.push(`${where}: ${provider} is given twice`);
    } else {
      tariffs[provider] = { percent, minimumMinor: lenientToMinorUnits(minimum) };
    }
  }
  return { tariffs, problems };
}

import { z } from 'zod';
import { parseCommissionTariffs } from './commission-tariffs.ts';
import { documented, emptyToUndefined, nonNegativeInt, positiveInt } from './zod-helpers.ts';

/**
 * The batch worker's variables: how many rows it pays at once, how it retries, the commission
 * it assumes and when the partner breaker opens. One group of gatewayEnvSchema (gateway-env.ts).
 */

/** The partner breaker's settings (partner/partner-breaker.ts), beside their PARTNER_BREAKER_* variables. */
export interface BreakerOptions {
  /** Calls in a row that ended in trouble before the breaker opens. */
  troubleCalls: number;
  /** ... over at least this many different paths: one payment's trouble is not the partner's. */
  troublePaths: number;
  /** Wait before the first probe; it doubles with each failed probe, up to probeMaxMs. */
  probeBaseMs: number;
  probeMaxMs: number;
  /** How often an open breaker is read again (and whether a probe is due), and a closed one at most. */
  refreshMs: number;
}

/** Why these numbers: docs/internals/reliability/partner-breaker.md (measured with bench/breaker-thresholds.ts). */
export const defaultBreakerOptions: BreakerOptions = {
  troubleCalls: 12,
  troublePaths: 3,
  probeBaseMs: 1_000,
  probeMaxMs: 30_000,
  refreshMs: 1_000,
};

/** `PROVIDER:PERCENT%:MINIMUM`, comma-separated (config/commission-tariffs.ts). */
const commissionTariffs = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return {};
      const { tariffs, problems } = parseCommissionTariffs(raw);
      for (const message of problems) ctx.addIssue({ code: 'custom', message });
      return tariffs;
    }),
);

export const workerVariables = {
  WORKER_IN_PROCESS: documented(
    z.preprocess(emptyToUndefined, z.enum(['true', 'false']).default('true')).transform((v) => v === 'true'),
    '`true`',
    'Run the batch worker inside the gateway. Set `false` and run `npm run worker` to scale it apart.',
  ),
  WORKER_CONCURRENCY: documented(positiveInt(8), '`8`', 'Batch payments in flight at once, per worker.'),
  WORKER_BATCH_CONCURRENCY: documented(positiveInt(8), '`8`', 'In flight at once within one batch.'),
  PARTNER_CALLS_PER_SECOND: documented(
    z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).optional()),
    '`0` (none)',
    "Calls per second to the partner at most, for every gateway and worker on one database together (set it a little under the partner's limit). See [Partner budget](../operations/scaling.md#partner-budget).",
  ),
  PARTNER_CALLS_IN_FLIGHT: documented(
    nonNegativeInt(0),
    '`0` (none)',
    'Calls to the partner in flight at once, for every gateway and worker on one database together. See [Partner budget](../operations/scaling.md#partner-budget).',
  ),
  WORKER_RATE_LIMIT: documented(
    nonNegativeInt(0),
    '`0` (none)',
    'Deprecated: read as `PARTNER_CALLS_PER_SECOND` when that is unset (a budget for the whole deployment now, no longer per worker).',
  ),
  WORKER_LEASE_MS: documented(
    positiveInt(60_000),
    '`60000`',
    "How long a claimed row is held; a crashed worker's rows are taken over after this.",
  ),
  WORKER_POLL_MS: documented(
    positiveInt(10_000),
    '`10000`',
    'The longest an idle worker sleeps before it looks for work unasked (a safety poll): approvals, resumes and retries wake it at once, and a row due later sets a timer. See [Workers](../operations/scaling.md#workers-that-wake).',
  ),
  WORKER_MAX_RETRIES: documented(
    nonNegativeInt(5),
    '`5`',
    'Sends of one step of a row (create; execute) after the first, when they prove nothing; then it is only read back.',
  ),
  COMMISSION_ESTIMATE_PERCENT: documented(
    z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^\d{1,2}(\.\d{1,2})?$/, 'must be a percentage such as 2 or 1.5')
        .default('2'),
    ),
    '`2`',
    'The commission rate assumed for a provider whose rate neither `COMMISSION_TARIFFS` states nor 35 days of history show (none charged, or only minimum fees), in the balance checks of approval and of a batch paused for funds. See [Commission estimate](../guide/bulk-payouts.md#commission-estimate).',
  ),
  COMMISSION_TARIFFS: documented(
    commissionTariffs,
    'unset: learned from the last 35 days',
    "Providers' tariffs as the contract states them, `PROVIDER:PERCENT%:MINIMUM` comma-separated (`bank-card-russia:1.5%:25.00,sbp-b2c:0.7%:10.00`): each row's commission is the percentage of its amount, rounded up to the kopeck, at least the minimum. A provider listed here is estimated by it alone; the others from what the partner charged in the last 35 days. See [Commission estimate](../guide/bulk-payouts.md#commission-estimate).",
  ),
  WORKER_RETRY_BASE_MS: documented(
    positiveInt(1_000),
    '`1000`',
    "First wait before a row's step is sent again; doubles each time, with jitter, up to a minute.",
  ),
  PARTNER_BREAKER_TROUBLE_CALLS: documented(
    positiveInt(defaultBreakerOptions.troubleCalls),
    `\`${defaultBreakerOptions.troubleCalls}\``,
    'Calls in a row ending in trouble (no answer, 429, 5xx) that open the partner breaker…',
  ),
  PARTNER_BREAKER_TROUBLE_PATHS: documented(
    positiveInt(defaultBreakerOptions.troublePaths),
    `\`${defaultBreakerOptions.troublePaths}\``,
    "…over at least this many different paths (one payment's trouble is not the partner's).",
  ),
  PARTNER_BREAKER_PROBE_MAX_MS: documented(
    positiveInt(defaultBreakerOptions.probeMaxMs),
    `\`${defaultBreakerOptions.probeMaxMs}\``,
    'The longest wait between probes while it is open (and at least `Retry-After`).',
  ),
};

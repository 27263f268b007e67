import { z } from 'zod';
import { lenientToMinorUnits, LENIENT_MONEY_VALUE } from '../money/money.ts';
import { parseApiKeys } from './api-key-entries.ts';
import { parseCommissionTariffs } from './commission-tariffs.ts';
import { sandboxSettingsSchema } from './sandbox-env.ts';
import {
  databaseUrl,
  documented,
  emptyToUndefined,
  httpUrl,
  isTimeZone,
  logLevel,
  nonNegativeInt,
  optionalBoolean,
  optionalString,
  port,
  positiveHoursAsMs,
  positiveInt,
} from './zod-helpers.ts';

/**
 * How many days a finished payment still holds a new row to the same payee, amount and
 * reference (a held row, batch/import/held-rows.ts): DUPLICATE_WINDOW_DAYS unset, and the
 * importer and approval when given no setting, all take it from here.
 */
export const DEFAULT_DUPLICATE_WINDOW_DAYS = 35;

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

/** APQ, documentId lookups and the trusted-documents mode, read by graphql/persisted-operations.ts. */
export interface PersistedOperationSettings {
  /** GATEWAY_TRUSTED_DOCUMENTS: `off`, `only` (the page's manifest), or a manifest file (with the page's). */
  trustedDocuments: 'off' | 'only' | { file: string };
  /** GATEWAY_APQ_CACHE_SIZE: documents the APQ store keeps per process; 0 turns APQ registration off. */
  apqCacheSize: number;
}

/** The two settings unset; a GraphQL server given none (tests) takes the same. */
export const DEFAULT_PERSISTED_OPERATIONS: PersistedOperationSettings = { trustedDocuments: 'off', apqCacheSize: 1000 };

/** `NAME:ROLE:KEY` or `KEY:ROLE`, comma-separated (config/api-key-entries.ts). */
const apiKeys = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return [];
      const { entries, problems } = parseApiKeys(raw);
      for (const message of problems) ctx.addIssue({ code: 'custom', message });
      return entries;
    }),
);

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

/**
 * `GATEWAY_CORS_ORIGINS`: browser origins allowed to call the gateway, each exactly as a
 * browser sends it in `Origin`; a path, wildcard or trailing slash would never match one.
 */
const corsOrigins = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const origins: string[] = [];
      if (raw === undefined) return origins;
      for (const [index, entry] of raw.split(',').entries()) {
        const trimmed = entry.trim();
        let origin: string | undefined;
        try {
          const url = new URL(trimmed);
          if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
        } catch {
          origin = undefined;
        }
        if (origin !== trimmed) {
          ctx.addIssue({
            code: 'custom',
            message: `entry ${index + 1} "${trimmed}" is not an origin: scheme, host and optional port only, such as https://app.example.com`,
          });
          continue;
        }
        origins.push(origin);
      }
      return origins;
    }),
);

const embeddedOnly = 'a random one per run for the embedded sandbox';

/**
 * Every variable the gateway, the worker and the CLI read, each with its entry of the
 * configuration reference (docs/operations/configuration.md, `npm run docs:config`).
 */
export const gatewayEnvSchema = z.object({
  PORT: documented(port(4000), '`4000`', 'HTTP port.'),
  HOST: documented(
    optionalString,
    '`127.0.0.1` without API keys, `0.0.0.0` with them',
    'Interface to listen on. Without `GATEWAY_API_KEYS` only a loopback address is accepted. Setting keys (to try the payday controls, say) makes the default every interface, so other machines on the network reach the port (each request still needs a key); `HOST=127.0.0.1` keeps it on this machine. The gateway logs `listening on every interface` when it does.',
  ),
  DATABASE_URL: documented(
    databaseUrl,
    'unset: embedded PGlite in `DATA_DIR/pglite`',
    '`postgres://user:pass@host:5432/db` selects PostgreSQL.',
  ),
  DATA_DIR: documented(
    z.preprocess(emptyToUndefined, z.string().default('./.data')),
    '`./.data`',
    "Embedded database, generated development keys, and the embedded sandbox's payments and balance (`DATA_DIR/sandbox`).",
  ),
  LOG_LEVEL: documented(
    logLevel,
    '`info`',
    '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. Logs are JSON (pino); pipe through `npx pino-pretty` to read them. Each request logs one line at `info` (probes and scrapes at `debug`) with its [request id](observability.md#request-id).',
  ),
  PAYOUT_API_URL: documented(
    httpUrl,
    'unset: embedded sandbox',
    'Base URL of the real Payout API (the part before `/partner/payout/v2`). When set, `PAYOUT_AGENT_ID`, `PAYOUT_API_TOKEN`, `PAYOUT_PRIVATE_KEY_FILE`, `PAYOUT_WEBHOOK_SECRET` and `GATEWAY_API_KEYS` are required. See [Pointing it at the real Payout API](real-partner.md).',
  ),
  PAYOUT_AGENT_ID: documented(optionalString, '`sandbox-agent`', 'Your agent identifier.'),
  PAYOUT_API_TOKEN: documented(optionalString, embeddedOnly, 'Bearer token.'),
  PAYOUT_PRIVATE_KEY_FILE: documented(
    optionalString,
    '`DATA_DIR/keys/dev-private.pem`, made on first start for the embedded sandbox',
    'PEM RSA 2048 private key that signs payment creation.',
  ),
  PAYOUT_WEBHOOK_SECRET: documented(optionalString, embeddedOnly, 'HMAC key of the status webhooks.'),
  PAYOUT_CONNECT_TIMEOUT_MS: documented(positiveInt(5_000), '`5000`', 'Upstream connect timeout.'),
  PAYOUT_HEADERS_TIMEOUT_MS: documented(positiveInt(15_000), '`15000`', "Time allowed for the upstream's response headers."),
  PAYOUT_BODY_TIMEOUT_MS: documented(positiveInt(15_000), '`15000`', 'Time allowed between body chunks.'),
  PAYOUT_MAX_RETRIES: documented(nonNegativeInt(3), '`3`', 'Retries after the first attempt for calls that are safe to repeat.'),
  GATEWAY_PUBLIC_URL: documented(httpUrl, 'unset', 'Public base URL; webhooks will be addressed to `GATEWAY_PUBLIC_URL/webhooks/payout`.'),
  GATEWAY_API_KEYS: documented(
    apiKeys,
    'unset: anonymous local use (embedded sandbox only)',
    "`name:role:key,…` (or the earlier `key:role,…`) with roles `viewer`, `operator`, `approver`, `admin`; a name (a letter, then letters, digits, `.`, `_`, `-`) is shown as the key's identity (`key:olga`), and may appear once. Each key at least 32 characters and about 128 bits (`openssl rand -hex 32`), else startup is refused. Required when `PAYOUT_API_URL` is set. Without keys, requests with a foreign `Origin` or `Host` get 403 (see [Security](../internals/security/README.md)).",
  ),
  GATEWAY_CORS_ORIGINS: documented(
    corsOrigins,
    'unset: CORS off',
    'Comma-separated exact origins (`https://payroll.example.com,http://localhost:3000`) whose browser pages may call the gateway and read its answers. A path, wildcard or trailing slash stops startup, naming the entry.',
  ),
  GATEWAY_WEBHOOK_ALLOW_PRIVATE: documented(
    optionalBoolean,
    '`false`',
    "`true` lets a payment's `webhookUrl` point at private, loopback, link-local and metadata addresses (a test rig, an upstream inside your network). `https` is still required, except plain http to loopback with the embedded sandbox.",
  ),
  PROVIDER_CACHE_TTL_MS: documented(
    nonNegativeInt(5 * 60_000),
    '`300000`',
    'How long provider details are kept before they are read again.',
  ),
  SHUTDOWN_DRAIN_MS: documented(
    nonNegativeInt(5_000),
    '`5000`',
    'After SIGTERM, how long `/readyz` answers 503 while requests are still served, before the gateway stops listening ([Stopping](deploy.md#stopping)). `0` stops at once.',
  ),
  READ_BACK_INTERVAL_MS: documented(
    z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).optional()),
    '`5000`',
    'How often the gateway looks for IN_PROGRESS/UNKNOWN payments due a read-back. Its former name `RECONCILE_INTERVAL_MS` is still read when this is unset.',
  ),
  /** The former name of READ_BACK_INTERVAL_MS, still read: deployments set it. */
  RECONCILE_INTERVAL_MS: documented(positiveInt(5_000), '`5000`', 'The former name of `READ_BACK_INTERVAL_MS`, read when that is unset.'),
  RECONCILE_TIME_ZONE: documented(
    z.preprocess(
      emptyToUndefined,
      z.string().default('UTC').refine(isTimeZone, { error: 'must be an IANA time zone, such as UTC or Europe/Moscow' }),
    ),
    '`UTC`',
    "The agent's time zone (an IANA name such as `Europe/Moscow`): a [reconciliation](../guide/reconciliation.md) period is whole days in it.",
  ),
  RECONCILE_STUCK_AFTER_MINUTES: documented(
    nonNegativeInt(240),
    '`240`',
    'A payment still CREATED, READY or IN_PROGRESS upstream (or PENDING/UNKNOWN only in the gateway) this long after its creation is reported `NOT_FINAL`.',
  ),
  RECONCILE_PAGE_SIZE: documented(
    positiveInt(100),
    '`100`',
    "Payments asked for per page of the upstream's list; halved while the upstream refuses it.",
  ),
  RECONCILE_MAX_READS: documented(positiveInt(3), '`3`', 'Times one day of the list is read when it keeps changing while read.'),
  RECONCILE_DAILY: documented(
    optionalBoolean,
    '`false` with the embedded sandbox, `true` with `PAYOUT_API_URL`',
    'The worker reconciles yesterday every day; with several workers on one PostgreSQL one of them does.',
  ),
  RECONCILE_DAILY_AT: documented(
    z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day HH:MM, such as 01:30')
        .default('01:00'),
    ),
    '`01:00`',
    'When, in `RECONCILE_TIME_ZONE` (HH:MM).',
  ),
  GATEWAY_SINGLE_USER: documented(
    optionalBoolean,
    '`true` without API keys, else `false`',
    'When `true`, the key that uploaded a batch may also approve it (and pay its failed rows again, and execute its own payments). It never stands in for a key: with `GATEWAY_API_KEYS` set, every request and every `payout` command, reads included, acts as one of those keys (`PAYOUT_CLI_KEY_FILE`), so the audit trail names who acted.',
  ),
  /** `off` (default), `only` (the page's operations), or a manifest file of codegen's client preset (with the page's). */
  GATEWAY_TRUSTED_DOCUMENTS: documented(
    z.preprocess(emptyToUndefined, z.string().default('off')),
    '`off`',
    "`only`: only the page's own operations run; a path to a manifest file (graphql-codegen's `persisted-documents.json`): that file's and the page's. Anything else is refused (`TRUSTED_DOCUMENTS_ONLY`). See [Persisted operations](../api/graphql/persisted-operations.md).",
  ),
  GATEWAY_APQ_CACHE_SIZE: documented(
    nonNegativeInt(DEFAULT_PERSISTED_OPERATIONS.apqCacheSize),
    `\`${DEFAULT_PERSISTED_OPERATIONS.apqCacheSize}\``,
    'Documents registered by APQ that each gateway process keeps (least recently used goes first); `0` turns APQ registration off.',
  ),
  PAYOUT_GATEWAY_URL: documented(
    httpUrl,
    'unset: `http://127.0.0.1:PORT`, or the database itself when nothing answers there',
    "The gateway the `payout` CLI acts through (its GraphQL API, with the CLI's key). Set, it must answer; unset, the CLI tries the local gateway and, when none answers, opens the database itself and says so.",
  ),
  PAYOUT_CLI_KEY: documented(
    optionalString,
    'unset',
    'The key (of `GATEWAY_API_KEYS`) the `payout` CLI acts as, itself (from a secret store); set this or `PAYOUT_CLI_KEY_FILE`, not both.',
  ),
  PAYOUT_CLI_KEY_FILE: documented(
    optionalString,
    'unset',
    'A file holding the one key (of `GATEWAY_API_KEYS`) the `payout` CLI acts as; `--key-file FILE` overrides it. With keys configured, a command without a key is refused (exit 2), reads included, `GATEWAY_SINGLE_USER` or not.',
  ),
  // Parsed once into minor units, so no request can meet a setting's parse error.
  PAYMENT_SECOND_PERSON_ABOVE: documented(
    z.preprocess(
      emptyToUndefined,
      z.string().regex(LENIENT_MONEY_VALUE, 'must be an amount in RUB such as 0 or 50000.00').default('0').transform(lenientToMinorUnits),
    ),
    '`0` (RUB)',
    'With API keys (not single-user): `executePayment` of a payment above this amount needs a key other than the one that created it (`SECOND_PERSON_REQUIRED`); `0` means every payment. Written `0`, `50000`, `50000.5` or `50000.50`. See [Access](../api/graphql/access.md).',
  ),
  APPROVAL_POLICY_FILE: documented(
    optionalString,
    'unset: one approver other than the uploader for any batch; single payments by `PAYMENT_SECOND_PERSON_ABOVE`',
    'A JSON file of [approval tiers](../guide/approval-policy.md): how many distinct people, and of which roles, a batch (by total and largest row) or a single payment (by amount) needs. Read at start; a problem stops startup, naming its line and field.',
  ),
  APPROVAL_LAPSE_DAYS: documented(
    z.preprocess(emptyToUndefined, z.coerce.number().positive().max(365).default(7)),
    '`7`',
    'An approval older than this no longer counts towards the policy: the batch or payment says so and needs it again.',
  ),
  APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS: documented(
    optionalBoolean,
    '`false`',
    "`true`: a batch that pays rows whose payee's account changed since the last payment needs one approver more than its tier says, and so does a single payment whose payee's account changed (one key other than the creator's below every tier).",
  ),
  WORKER_IN_PROCESS: documented(
    z.preprocess(emptyToUndefined, z.enum(['true', 'false']).default('true')).transform((v) => v === 'true'),
    '`true`',
    'Run the batch worker inside the gateway. Set `false` and run `npm run worker` to scale it apart.',
  ),
  WORKER_CONCURRENCY: documented(positiveInt(8), '`8`', 'Batch payments in flight at once, per worker.'),
  WORKER_BATCH_CONCURRENCY: documented(positiveInt(8), '`8`', 'In flight at once within one batch.'),
  WORKER_RATE_LIMIT: documented(nonNegativeInt(0), '`0` (none)', 'Upstream calls per second at most, per worker.'),
  WORKER_LEASE_MS: documented(
    positiveInt(60_000),
    '`60000`',
    "How long a claimed row is held; a crashed worker's rows are taken over after this.",
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
  BATCH_MAX_ROWS: documented(positiveInt(500_000), '`500000`', 'Rows per file at most.'),
  BATCH_MAX_FILE_BYTES: documented(positiveInt(100 * 1024 * 1024), '`104857600`', 'File size at most (100 MiB).'),
  DUPLICATE_WINDOW_DAYS: documented(
    nonNegativeInt(DEFAULT_DUPLICATE_WINDOW_DAYS),
    `\`${DEFAULT_DUPLICATE_WINDOW_DAYS}\``,
    'How long a finished row of an approved batch counts when later rows are checked for a repeated payment ([held rows](../guide/payroll-files.md#held-rows)); rows still paying always count.',
  ),
  SCHEDULE_HORIZON_DAYS: documented(
    positiveInt(90),
    '`90`',
    'How far ahead an approval may set the time to pay (`payAt`) of a [scheduled batch](../guide/scheduling.md).',
  ),
  SCHEDULE_FORECAST_LEAD_HOURS: documented(
    positiveHoursAsMs(24),
    '`24`',
    "How many hours (above 0; fractions such as `0.5` too) before a scheduled batch's time the balance is read again against it and every batch paying before it; a shortfall then is a notice, not a failure. A batch scheduled sooner than this has its forecast read at approval ([forecast](../guide/scheduling.md#forecast)).",
  ),
  EVENTS_ALLOW_LOCAL_ENDPOINTS: documented(
    optionalBoolean,
    '`false`',
    'For local development: event subscriptions may point at plain `http://localhost` and at loopback or private addresses. Off, an endpoint must be https and resolve to public addresses only, checked at every delivery. See [Events](../api/events.md).',
  ),
  EVENT_DELIVERY_TIMEOUT_MS: documented(
    positiveInt(10_000),
    '`10000`',
    'A receiver that has not answered an event in this long is cut off; the attempt counts as failed.',
  ),
  EVENT_RETRY_BASE_MS: documented(
    positiveInt(5_000),
    '`5000`',
    'First wait before an event a receiver did not take is sent again; doubles each time, with jitter, up to `EVENT_RETRY_MAX_MS`.',
  ),
  EVENT_RETRY_MAX_MS: documented(positiveInt(3_600_000), '`3600000` (an hour)', 'The longest wait between two attempts of one event.'),
  EVENT_RETRY_FOR_MS: documented(
    positiveInt(259_200_000),
    '`259200000` (3 days)',
    'How long an event is retried; a subscription failing this long is turned off (an `event_subscription.disabled` event, a notice on the page).',
  ),
  EVENT_SECRET_OVERLAP_MS: documented(
    positiveInt(86_400_000),
    '`86400000` (a day)',
    'After a secret is rotated, the old one still signs beside the new one for this long.',
  ),
  EVENT_LOG_RETENTION_DAYS: documented(
    positiveInt(30),
    '`30`',
    'Delivery attempts, and events every subscription is past, are kept this many days.',
  ),
  EVENT_POLL_MS: documented(positiveInt(1_000), '`1000`', 'How often an idle worker looks for events to deliver.'),
  EVENT_DELIVERY_CONCURRENCY: documented(
    positiveInt(4),
    '`4`',
    "Subscriptions one worker delivers to at once (each subscription's events go out one at a time, in order).",
  ),
  IMPORT_STALE_MS: documented(
    positiveInt(90_000),
    '`90000`',
    'An import that sent no heartbeat for this long is taken as dead and its batch rejected.',
  ),
  PAYOUT_DATA_KEY: documented(
    optionalString,
    'unset: with the embedded sandbox, `DATA_DIR/keys/data-key` (made on first start, mode 0600)',
    "Base64 of 32 random bytes (`openssl rand -base64 32`): the AES-256-GCM key that encrypts batch rows' recipient details at rest. Required (or `PAYOUT_DATA_KEY_FILE`) when `PAYOUT_API_URL` is set; every gateway and worker on one database needs the same key. See [Card data](../internals/security/card-data.md).",
  ),
  PAYOUT_DATA_KEY_FILE: documented(optionalString, 'unset', 'A file holding that base64 key, instead of `PAYOUT_DATA_KEY`.'),
  PAYOUT_DATA_KEYS_OLD: documented(
    optionalString,
    'unset',
    'Earlier data keys (base64, comma-separated), still accepted for decryption after a rotation.',
  ),
  CARD_DATA_RETENTION_DAYS: documented(
    z.preprocess(emptyToUndefined, z.coerce.number().min(0).default(30)),
    '`30`',
    'How long FAILED and EXPIRED rows (which `retryFailedItems` can pay again) and rows of batches never approved keep their encrypted recipient; after that only the masked form remains and they cannot be paid again.',
  ),
  METRICS_PORT: documented(
    z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).optional()),
    'unset: `/metrics` only on `PORT`, with an admin key',
    'A port serving [`/metrics`](observability.md#metrics) without a key (`0`: any free port).',
  ),
  METRICS_HOST: documented(
    z.preprocess(emptyToUndefined, z.string().default('127.0.0.1')),
    '`127.0.0.1`',
    'Interface of `METRICS_PORT`. Anything but loopback exposes the metrics to whoever reaches the port.',
  ),
  ...sandboxSettingsSchema.shape,
});

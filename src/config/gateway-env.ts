import { z } from 'zod';
import { accessVariables } from './access-env.ts';
import { identityVariables } from './identity-env.ts';
import { parseApiKeys } from './api-key-entries.ts';
import { eventVariables } from './events-env.ts';
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
import { workerVariables } from './worker-env.ts';

/**
 * How many days a finished payment still holds a new row to the same payee, amount and
 * reference (a held row, batch/import/held-rows.ts): DUPLICATE_WINDOW_DAYS unset, and the
 * importer and approval when given no setting, all take it from here.
 */
export const DEFAULT_DUPLICATE_WINDOW_DAYS = 35;

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
 * The larger groups live in files of their own (access-env.ts, worker-env.ts, events-env.ts);
 * they are spread in the order the reference lists them, so the reference does not move.
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
  ...accessVariables,
  ...identityVariables,
  ...workerVariables,
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
  ...eventVariables,
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

import { defaultBreakerOptions } from '../partner/breaker-options.ts';
import { z } from 'zod';
import type { DataKeySettings } from '../crypto/data-keys.ts';
import { parseApiKeys, type ApiKeyEntry } from './api-key-entries.ts';
import { ConfigError, type ConfigProblem } from './config-error.ts';
import type { PersistedOperationSettings } from '../graphql/persisted-operations.ts';

/** The environment as this process sees it; only string values matter. */
export type Env = Record<string, string | undefined>;

/**
 * How many days a finished payment still makes a new row to the same payee, amount and
 * reference a duplicate (batch/import/duplicate-rows.ts): DUPLICATE_WINDOW_DAYS unset, and the
 * importer and approval when given no setting, all take it from here.
 */
export const DEFAULT_DUPLICATE_WINDOW_DAYS = 35;

const emptyToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const optionalBoolean = z.preprocess(
  emptyToUndefined,
  z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
);

const port = (fallback: number) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(65535).default(fallback),
  );

const positiveInt = (fallback: number) =>
  z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).default(fallback));

const nonNegativeInt = (fallback: number) =>
  z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).default(fallback));

const httpUrl = z.preprocess(
  emptyToUndefined,
  z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
);

const databaseUrl = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
);

export { roles, type Role } from './roles.ts';

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

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const logLevel = z.preprocess(
  emptyToUndefined,
  z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
);

const rate = z.preprocess(emptyToUndefined, z.coerce.number().min(0).max(1).default(0));
const decimalAmount = (fallback: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^\d+\.\d{2}$/, 'must be an amount with two decimals, such as 1000.00')
      .default(fallback),
  );

/**
 * The sandbox's behaviour: read by `npm run sandbox` and by the gateway for its embedded
 * sandbox alike. The balance is large enough for `samples:generate` files of a million rows.
 */
const sandboxSettingsSchema = z.object({
  SANDBOX_BALANCE: decimalAmount('100000000000.00'),
  SANDBOX_OVERDRAFT: decimalAmount('0.00'),
  SANDBOX_EXPIRY_MS: positiveInt(24 * 60 * 60 * 1000),
  SANDBOX_IN_PROGRESS_MS: nonNegativeInt(3_000),
  SANDBOX_WEBHOOK_ATTEMPTS: positiveInt(8),
  SANDBOX_WEBHOOK_BACKOFF_MS: positiveInt(500),
  SANDBOX_LATENCY_MS: nonNegativeInt(0),
  SANDBOX_JITTER_MS: nonNegativeInt(0),
  SANDBOX_FAIL_BEFORE_RATE: rate,
  SANDBOX_FAIL_AFTER_RATE: rate,
  SANDBOX_FAIL_BEFORE_HTML_RATE: rate,
  SANDBOX_FAIL_AFTER_HTML_RATE: rate,
  SANDBOX_DROP_BEFORE_RATE: rate,
  SANDBOX_DROP_RATE: rate,
  SANDBOX_SLOW_RATE: rate,
  SANDBOX_RATE_LIMIT_RATE: rate,
  SANDBOX_TRUNCATE_RATE: rate,
  SANDBOX_SLOW_MS: nonNegativeInt(30_000),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

const gatewayEnv = z.object({
  PORT: port(4000),
  HOST: optionalString,
  DATABASE_URL: databaseUrl,
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./.data')),
  LOG_LEVEL: logLevel,
  PAYOUT_API_URL: httpUrl,
  PAYOUT_AGENT_ID: optionalString,
  PAYOUT_API_TOKEN: optionalString,
  PAYOUT_PRIVATE_KEY_FILE: optionalString,
  PAYOUT_WEBHOOK_SECRET: optionalString,
  PAYOUT_CONNECT_TIMEOUT_MS: positiveInt(5_000),
  PAYOUT_HEADERS_TIMEOUT_MS: positiveInt(15_000),
  PAYOUT_BODY_TIMEOUT_MS: positiveInt(15_000),
  PAYOUT_MAX_RETRIES: nonNegativeInt(3),
  GATEWAY_PUBLIC_URL: httpUrl,
  GATEWAY_API_KEYS: apiKeys,
  GATEWAY_CORS_ORIGINS: corsOrigins,
  GATEWAY_WEBHOOK_ALLOW_PRIVATE: optionalBoolean,
  PROVIDER_CACHE_TTL_MS: nonNegativeInt(5 * 60_000),
  SHUTDOWN_DRAIN_MS: nonNegativeInt(5_000),
  READ_BACK_INTERVAL_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).optional()),
  /** The former name of READ_BACK_INTERVAL_MS, still read: deployments set it. */
  RECONCILE_INTERVAL_MS: positiveInt(5_000),
  RECONCILE_TIME_ZONE: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default('UTC')
      .refine(isTimeZone, { error: 'must be an IANA time zone, such as UTC or Europe/Moscow' }),
  ),
  RECONCILE_STUCK_AFTER_MINUTES: nonNegativeInt(240),
  RECONCILE_PAGE_SIZE: positiveInt(100),
  RECONCILE_MAX_READS: positiveInt(3),
  RECONCILE_DAILY: optionalBoolean,
  RECONCILE_DAILY_AT: z.preprocess(
    emptyToUndefined,
    z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day HH:MM, such as 01:30').default('01:00'),
  ),
  GATEWAY_SINGLE_USER: optionalBoolean,
  /** `off` (default), `only` (the page's operations), or a manifest file of codegen's client preset (with the page's). */
  GATEWAY_TRUSTED_DOCUMENTS: z.preprocess(emptyToUndefined, z.string().default('off')),
  GATEWAY_APQ_CACHE_SIZE: nonNegativeInt(1000),
  PAYOUT_CLI_KEY: optionalString,
  PAYOUT_CLI_KEY_FILE: optionalString,
  PAYMENT_SECOND_PERSON_ABOVE: z.preprocess(
    emptyToUndefined,
    z.string().regex(/^\d{1,16}(\.\d{1,2})?$/, 'must be an amount in RUB such as 0 or 50000.00').default('0'),
  ),
  WORKER_IN_PROCESS: z.preprocess(emptyToUndefined, z.enum(['true', 'false']).default('true')).transform((v) => v === 'true'),
  WORKER_CONCURRENCY: positiveInt(8),
  WORKER_BATCH_CONCURRENCY: positiveInt(8),
  WORKER_RATE_LIMIT: nonNegativeInt(0),
  WORKER_LEASE_MS: positiveInt(60_000),
  WORKER_MAX_RETRIES: nonNegativeInt(5),
  COMMISSION_ESTIMATE_PERCENT: z.preprocess(
    emptyToUndefined,
    z.string().regex(/^\d{1,2}(\.\d{1,2})?$/, 'must be a percentage such as 2 or 1.5').default('2'),
  ),
  WORKER_RETRY_BASE_MS: positiveInt(1_000),
  PARTNER_BREAKER_TROUBLE_CALLS: positiveInt(defaultBreakerOptions.troubleCalls),
  PARTNER_BREAKER_TROUBLE_PATHS: positiveInt(defaultBreakerOptions.troublePaths),
  PARTNER_BREAKER_PROBE_MAX_MS: positiveInt(defaultBreakerOptions.probeMaxMs),
  BATCH_MAX_ROWS: positiveInt(500_000),
  BATCH_MAX_FILE_BYTES: positiveInt(100 * 1024 * 1024),
  DUPLICATE_WINDOW_DAYS: nonNegativeInt(DEFAULT_DUPLICATE_WINDOW_DAYS),
  IMPORT_STALE_MS: positiveInt(90_000),
  PAYOUT_DATA_KEY: optionalString,
  PAYOUT_DATA_KEY_FILE: optionalString,
  PAYOUT_DATA_KEYS_OLD: optionalString,
  CARD_DATA_RETENTION_DAYS: z.preprocess(emptyToUndefined, z.coerce.number().min(0).default(30)),
  METRICS_PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).optional()),
  METRICS_HOST: z.preprocess(emptyToUndefined, z.string().default('127.0.0.1')),
  ...sandboxSettingsSchema.shape,
});

/** Required together once the gateway talks to a real upstream. */
const remoteOnly = [
  'PAYOUT_AGENT_ID',
  'PAYOUT_API_TOKEN',
  'PAYOUT_PRIVATE_KEY_FILE',
  'PAYOUT_WEBHOOK_SECRET',
] as const;

export interface PayoutClientSettings {
  agentId: string;
  apiToken: string;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxRetries: number;
}

export interface GatewayConfig {
  port: number;
  /** undefined means "decide from the mode": loopback for the embedded sandbox. */
  host: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: z.infer<typeof logLevel>;
  publicUrl: string | undefined;
  /** GATEWAY_API_KEYS; empty means anonymous local use. */
  apiKeys: ApiKeyEntry[];
  /** The key the `payout` CLI acts as (PAYOUT_CLI_KEY, or a file holding it); --key-file overrides both. */
  cliKey: { key: string | undefined; keyFile: string | undefined };
  /** Browser origins given CORS access; empty means none (CORS off). */
  corsOrigins: string[];
  /** Payment webhookUrl may point at private, loopback or link-local addresses. */
  webhookAllowPrivate: boolean;
  providerCacheTtlMs: number;
  /** After SIGTERM, how long /readyz answers 503 while requests are still served, so a load balancer stops sending new ones first. */
  shutdownDrainMs: number;
  /** How often unsettled payments due a read-back are looked for (payments/read-back.ts). */
  readBackIntervalMs: number;
  /** Daily reconciliation with the upstream's payment list (src/reconciliation). */
  reconciliation: {
    timeZone: string;
    stuckAfterMinutes: number;
    pageSize: number;
    maxReads: number;
    /** The worker runs yesterday's reconciliation every day at `dailyAt` (HH:MM in timeZone). */
    daily: boolean;
    dailyAt: string;
  };
  /** One person may upload and approve the same batch (default: only in anonymous local use). */
  singleUser: boolean;
  /** APQ, documentId lookups and the trusted-documents mode (src/graphql/persisted-operations.ts). */
  persistedOperations: PersistedOperationSettings;
  /**
   * PAYMENT_SECOND_PERSON_ABOVE (RUB, decimal string, default 0): executePayment of a payment
   * above it needs a key other than its creator's. null in single-user mode (off).
   */
  paymentSecondPersonAbove: string | null;
  worker: {
    inProcess: boolean;
    concurrency: number;
    perBatchConcurrency: number;
    ratePerSecond: number;
    leaseMs: number;
    /** A VALIDATING batch whose import sent no heartbeat this long is rejected by the sweep. */
    importStaleMs: number;
    maxRetries: number;
    retryBaseMs: number;
  };
  /** Commission of a provider the partner has not charged yet, in percent of the amount: the funds checks' estimate. */
  commissionEstimatePercent: string;
  /** When trouble of the whole partner opens the shared breaker, and how often it is probed (partner/). */
  breaker: { troubleCalls: number; troublePaths: number; probeMaxMs: number };
  batchLimits: { maxRows: number; maxBytes: number };
  /** Rows repeating a payment of an approved batch finished this many days ago (or still paying) are held back. */
  duplicateWindowDays: number;
  /** Card data at rest (src/crypto, src/batch/card-data.ts): the data keys and how long failed rows keep it. */
  cardData: DataKeySettings & { retentionDays: number };
  /** METRICS_PORT: /metrics without a key on its own port (undefined: only on the gateway's, with an admin key). */
  metrics: { port: number | undefined; host: string };
  /** The embedded sandbox's settings (SANDBOX_*); its state lives in DATA_DIR/sandbox. */
  sandbox: SandboxSettings;
  payout:
    | ({ mode: 'embedded' } & PayoutClientSettings & { webhookSecret: string | undefined })
    | ({ mode: 'remote'; apiUrl: string; privateKeyFile: string; webhookSecret: string } & PayoutClientSettings);
}

export const EMBEDDED_AGENT_ID = 'sandbox-agent';
const loopback = new Set(['127.0.0.1', 'localhost', '::1']);

export function loadGatewayConfig(env: Env): GatewayConfig {
  const isSet = (name: string) => (env[name] ?? '').trim() !== '';
  // Reported together with any other problem, so one restart fixes everything.
  const missing: ConfigProblem[] = isSet('PAYOUT_API_URL')
    ? remoteOnly
        .filter((name) => !isSet(name))
        .map((name) => ({ variable: name, message: 'is required when PAYOUT_API_URL is set' }))
    : [];
  // Without keys anyone who can reach the port may pay: only for the local sandbox.
  const hasKeys = isSet('GATEWAY_API_KEYS');
  if (isSet('PAYOUT_API_URL') && !hasKeys) {
    missing.push({ variable: 'GATEWAY_API_KEYS', message: 'is required when PAYOUT_API_URL is set (anonymous use is only for the embedded sandbox)' });
  }
  if (!hasKeys && isSet('HOST') && !loopback.has(env.HOST!.trim())) {
    missing.push({ variable: 'HOST', message: 'must be a loopback address while GATEWAY_API_KEYS is unset (anonymous local use)' });
  }
  const parsed = parseEnv(gatewayEnv, env, missing);
  const client: PayoutClientSettings = {
    agentId: parsed.PAYOUT_AGENT_ID ?? EMBEDDED_AGENT_ID,
    // The embedded sandbox lives in this process; a token made per run is enough.
    apiToken: parsed.PAYOUT_API_TOKEN ?? '',
    connectTimeoutMs: parsed.PAYOUT_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: parsed.PAYOUT_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: parsed.PAYOUT_BODY_TIMEOUT_MS,
    maxRetries: parsed.PAYOUT_MAX_RETRIES,
  };
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    dataDir: parsed.DATA_DIR,
    logLevel: parsed.LOG_LEVEL,
    publicUrl: parsed.GATEWAY_PUBLIC_URL,
    apiKeys: parsed.GATEWAY_API_KEYS,
    cliKey: { key: parsed.PAYOUT_CLI_KEY, keyFile: parsed.PAYOUT_CLI_KEY_FILE },
    corsOrigins: parsed.GATEWAY_CORS_ORIGINS,
    webhookAllowPrivate: parsed.GATEWAY_WEBHOOK_ALLOW_PRIVATE ?? false,
    providerCacheTtlMs: parsed.PROVIDER_CACHE_TTL_MS,
    shutdownDrainMs: parsed.SHUTDOWN_DRAIN_MS,
    readBackIntervalMs: parsed.READ_BACK_INTERVAL_MS ?? parsed.RECONCILE_INTERVAL_MS,
    reconciliation: {
      timeZone: parsed.RECONCILE_TIME_ZONE,
      stuckAfterMinutes: parsed.RECONCILE_STUCK_AFTER_MINUTES,
      pageSize: parsed.RECONCILE_PAGE_SIZE,
      maxReads: parsed.RECONCILE_MAX_READS,
      // Off with the embedded sandbox (a developer's machine), on against a real upstream.
      daily: parsed.RECONCILE_DAILY ?? parsed.PAYOUT_API_URL !== undefined,
      dailyAt: parsed.RECONCILE_DAILY_AT,
    },
    singleUser: parsed.GATEWAY_SINGLE_USER ?? parsed.GATEWAY_API_KEYS.length === 0,
    persistedOperations: {
      trustedDocuments:
        parsed.GATEWAY_TRUSTED_DOCUMENTS === 'off' || parsed.GATEWAY_TRUSTED_DOCUMENTS === 'only' ? parsed.GATEWAY_TRUSTED_DOCUMENTS : { file: parsed.GATEWAY_TRUSTED_DOCUMENTS },
      apqCacheSize: parsed.GATEWAY_APQ_CACHE_SIZE,
    },
    paymentSecondPersonAbove: (parsed.GATEWAY_SINGLE_USER ?? parsed.GATEWAY_API_KEYS.length === 0) ? null : parsed.PAYMENT_SECOND_PERSON_ABOVE,
    worker: {
      inProcess: parsed.WORKER_IN_PROCESS,
      concurrency: parsed.WORKER_CONCURRENCY,
      perBatchConcurrency: parsed.WORKER_BATCH_CONCURRENCY,
      ratePerSecond: parsed.WORKER_RATE_LIMIT,
      leaseMs: parsed.WORKER_LEASE_MS,
      importStaleMs: parsed.IMPORT_STALE_MS,
      maxRetries: parsed.WORKER_MAX_RETRIES,
      retryBaseMs: parsed.WORKER_RETRY_BASE_MS,
    },
    commissionEstimatePercent: parsed.COMMISSION_ESTIMATE_PERCENT,
    breaker: {
      troubleCalls: parsed.PARTNER_BREAKER_TROUBLE_CALLS,
      troublePaths: parsed.PARTNER_BREAKER_TROUBLE_PATHS,
      probeMaxMs: parsed.PARTNER_BREAKER_PROBE_MAX_MS,
    },
    batchLimits: { maxRows: parsed.BATCH_MAX_ROWS, maxBytes: parsed.BATCH_MAX_FILE_BYTES },
    duplicateWindowDays: parsed.DUPLICATE_WINDOW_DAYS,
    cardData: {
      key: parsed.PAYOUT_DATA_KEY,
      keyFile: parsed.PAYOUT_DATA_KEY_FILE,
      oldKeys: (parsed.PAYOUT_DATA_KEYS_OLD ?? '').split(',').map((k) => k.trim()).filter((k) => k !== ''),
      retentionDays: parsed.CARD_DATA_RETENTION_DAYS,
    },
    metrics: { port: parsed.METRICS_PORT, host: parsed.METRICS_HOST },
    sandbox: Object.fromEntries(Object.keys(sandboxSettingsSchema.shape).map((name) => [name, parsed[name as keyof SandboxSettings]])) as SandboxSettings,
    payout:
      parsed.PAYOUT_API_URL === undefined
        ? { mode: 'embedded', ...client, webhookSecret: parsed.PAYOUT_WEBHOOK_SECRET }
        : {
            mode: 'remote',
            ...client,
            apiUrl: parsed.PAYOUT_API_URL,
            privateKeyFile: parsed.PAYOUT_PRIVATE_KEY_FILE!,
            webhookSecret: parsed.PAYOUT_WEBHOOK_SECRET!,
          },
  };
}

const sandboxEnv = z.object({
  SANDBOX_PORT: port(4010),
  HOST: optionalString,
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./.data')),
  LOG_LEVEL: logLevel,
  PAYOUT_AGENT_ID: z.preprocess(emptyToUndefined, z.string().default(EMBEDDED_AGENT_ID)),
  PAYOUT_API_TOKEN: z.preprocess(emptyToUndefined, z.string().default('sandbox-token')),
  PAYOUT_PUBLIC_KEY_FILE: optionalString,
  PAYOUT_WEBHOOK_SECRET: z.preprocess(emptyToUndefined, z.string().default('sandbox-webhook-secret')),
  /** Where the standalone sandbox keeps its payments and balance (default DATA_DIR/sandbox-standalone). */
  SANDBOX_DATA_DIR: optionalString,
  ...sandboxSettingsSchema.shape,
});

export type SandboxEnv = z.infer<typeof sandboxEnv>;

export function loadSandboxEnv(env: Env): SandboxEnv {
  return parseEnv(sandboxEnv, env);
}

function parseEnv<T extends z.ZodType>(schema: T, env: Env, extra: ConfigProblem[] = []): z.infer<T> {
  const result = schema.safeParse(env);
  const problems = [
    ...(result.error?.issues ?? []).map((issue) => ({
      variable: String(issue.path[0] ?? '(environment)'),
      message: issue.message,
    })),
    ...extra,
  ];
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return result.data;
}

import type { z } from 'zod';
import type { ApiKeyEntry } from './api-key-entries.ts';
import type { CommissionTariffs } from './commission-tariffs.ts';
import type { ConfigProblem } from './config-error.ts';
import { identitySettingsOf, type IdentitySettings } from './identity-env.ts';
import type { PersistedOperationSettings } from './access-env.ts';
import { gatewayEnvSchema } from './gateway-env.ts';
import { EMBEDDED_AGENT_ID, sandboxSettingsSchema, type SandboxSettings } from './sandbox-env.ts';
import { parseEnv, type Env, type logLevel } from './zod-helpers.ts';

/** Required together once the gateway talks to a real upstream. */
const remoteOnly = ['PAYOUT_AGENT_ID', 'PAYOUT_API_TOKEN', 'PAYOUT_PRIVATE_KEY_FILE', 'PAYOUT_WEBHOOK_SECRET'] as const;

export interface PayoutClientSettings {
  agentId: string;
  apiToken: string;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxRetries: number;
}

/** Where the data keys come from: the environment, or a file made in DATA_DIR for embedded use. */
export interface DataKeySettings {
  /** PAYOUT_DATA_KEY: base64 of 32 random bytes. */
  key: string | undefined;
  /** PAYOUT_DATA_KEY_FILE: a file holding that base64 text. */
  keyFile: string | undefined;
  /** PAYOUT_DATA_KEYS_OLD: earlier keys (base64, comma-separated), still accepted for decryption. */
  oldKeys: string[];
}

/** EVENT_* settings: outbound events' endpoints and delivery (src/outbound/). */
export interface EventSettings {
  /** EVENTS_ALLOW_LOCAL_ENDPOINTS: http to loopback, loopback and private addresses (development). */
  allowLocalEndpoints: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  retryForMs: number;
  secretOverlapMs: number;
  logRetentionMs: number;
  pollMs: number;
  concurrency: number;
}

export interface GatewayConfig {
  port: number;
  /** undefined means "decide from the mode": loopback for the embedded sandbox. */
  host: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: z.infer<typeof logLevel>;
  publicUrl: string | undefined;
  /** GATEWAY_OIDC_*: the company's identity provider for the page's sign-in and services' tokens; undefined: none. */
  identity: IdentitySettings | undefined;
  /** GATEWAY_API_KEYS; empty (and no identity provider) means anonymous local use. */
  apiKeys: ApiKeyEntry[];
  /** The key the `payout` CLI acts as (PAYOUT_CLI_KEY, or a file holding it); --key-file overrides both. */
  cliKey: { key: string | undefined; keyFile: string | undefined };
  /** The gateway the `payout` CLI acts through (PAYOUT_GATEWAY_URL); undefined: the local one, or the database itself. */
  gatewayUrl: string | undefined;
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
  /** APQ, documentId lookups and the trusted-documents mode (config/access-env.ts; used by graphql/persisted-operations.ts). */
  persistedOperations: PersistedOperationSettings;
  /**
   * PAYMENT_SECOND_PERSON_ABOVE (RUB, default 0) in minor units: executePayment of a payment
   * above it needs a key other than its creator's. null in single-user mode (off).
   */
  paymentSecondPersonAbove: bigint | null;
  /** Approval policies (src/approval): the file, read and checked at start by the runtime, and how long an approval counts. */
  approval: { policyFile: string | undefined; lapseDays: number; extraForChangedAccounts: boolean };
  worker: {
    inProcess: boolean;
    concurrency: number;
    perBatchConcurrency: number;
    /** The safety poll of an idle worker (WORKER_POLL_MS); notices and due times wake it sooner. */
    pollMs: number;
    leaseMs: number;
    /** A VALIDATING batch whose import sent no heartbeat this long is rejected by the sweep. */
    importStaleMs: number;
    maxRetries: number;
    retryBaseMs: number;
  };
  /** The funds checks' commission estimate (docs/decisions/0019-commission-estimate.md). */
  commission: {
    /** COMMISSION_TARIFFS: tariffs the contract states, by provider; they win over history. */
    tariffs: CommissionTariffs;
    /** COMMISSION_ESTIMATE_PERCENT: the rate of a provider whose rate is neither configured nor seen. */
    defaultPercent: string;
  };
  /** When trouble of the whole partner opens the shared breaker, and how often it is probed (partner/). */
  breaker: { troubleCalls: number; troublePaths: number; probeMaxMs: number };
  /** The deployment's partner budget (partner/budget/): every process on one database together; 0 is none. */
  partnerBudget: { callsPerSecond: number; callsInFlight: number };
  batchLimits: { maxRows: number; maxBytes: number };
  /** Rows repeating a payment of an approved batch finished this many days ago (or still paying) are held back. */
  duplicateWindowDays: number;
  /** Scheduled batches (batch/lifecycle/batch-schedule.ts): how far ahead payAt may be, and when the forecast is read before it. */
  schedule: { horizonDays: number; forecastLeadMs: number };
  /** Card data at rest (src/crypto, src/batch/card-data.ts): the data keys and how long failed rows keep it. */
  cardData: DataKeySettings & { retentionDays: number };
  /** Outbound events (src/outbound/): where they may go and how their delivery is retried. */
  events: EventSettings;
  /** METRICS_PORT: /metrics without a key on its own port (undefined: only on the gateway's, with an admin key). */
  metrics: { port: number | undefined; host: string };
  /** The embedded sandbox's settings (SANDBOX_*); its state lives in DATA_DIR/sandbox. */
  sandbox: SandboxSettings;
  payout:
    | ({ mode: 'embedded' } & PayoutClientSettings & { webhookSecret: string | undefined })
    | ({ mode: 'remote'; apiUrl: string; privateKeyFile: string; webhookSecret: string } & PayoutClientSettings);
}

const loopback = new Set(['127.0.0.1', 'localhost', '::1']);

export function loadGatewayConfig(env: Env): GatewayConfig {
  const isSet = (name: string) => (env[name] ?? '').trim() !== '';
  // Reported together with any other problem, so one restart fixes everything.
  const missing: ConfigProblem[] = isSet('PAYOUT_API_URL')
    ? remoteOnly.filter((name) => !isSet(name)).map((name) => ({ variable: name, message: 'is required when PAYOUT_API_URL is set' }))
    : [];
  // Without keys anyone who can reach the port may pay: only for the local sandbox.
  // Single sign-on names people too: a gateway with it is no more anonymous than one with keys.
  const hasKeys = isSet('GATEWAY_API_KEYS') || isSet('GATEWAY_OIDC_ISSUER');
  if (isSet('PAYOUT_API_URL') && !hasKeys) {
    missing.push({
      variable: 'GATEWAY_API_KEYS',
      message: 'is required when PAYOUT_API_URL is set, unless GATEWAY_OIDC_ISSUER is (anonymous use is only for the embedded sandbox)',
    });
  }
  if (!hasKeys && isSet('HOST') && !loopback.has(env.HOST!.trim())) {
    missing.push({ variable: 'HOST', message: 'must be a loopback address while GATEWAY_API_KEYS is unset (anonymous local use)' });
  }
  if (isSet('GATEWAY_OIDC_ISSUER') && !isSet('GATEWAY_OIDC_CLIENT_ID'))
    missing.push({ variable: 'GATEWAY_OIDC_CLIENT_ID', message: 'is required when GATEWAY_OIDC_ISSUER is set' });
  const parsed = parseEnv(gatewayEnvSchema, env, missing);
  const identity = identitySettingsOf(parsed);
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
    gatewayUrl: parsed.PAYOUT_GATEWAY_URL,
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
    identity,
    singleUser: parsed.GATEWAY_SINGLE_USER ?? (parsed.GATEWAY_API_KEYS.length === 0 && identity === undefined),
    persistedOperations: {
      trustedDocuments:
        parsed.GATEWAY_TRUSTED_DOCUMENTS === 'off' || parsed.GATEWAY_TRUSTED_DOCUMENTS === 'only'
          ? parsed.GATEWAY_TRUSTED_DOCUMENTS
          : { file: parsed.GATEWAY_TRUSTED_DOCUMENTS },
      apqCacheSize: parsed.GATEWAY_APQ_CACHE_SIZE,
    },
    paymentSecondPersonAbove:
      (parsed.GATEWAY_SINGLE_USER ?? (parsed.GATEWAY_API_KEYS.length === 0 && identity === undefined))
        ? null
        : parsed.PAYMENT_SECOND_PERSON_ABOVE,
    approval: {
      policyFile: parsed.APPROVAL_POLICY_FILE,
      lapseDays: parsed.APPROVAL_LAPSE_DAYS,
      extraForChangedAccounts: parsed.APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS ?? false,
    },
    worker: {
      inProcess: parsed.WORKER_IN_PROCESS,
      concurrency: parsed.WORKER_CONCURRENCY,
      perBatchConcurrency: parsed.WORKER_BATCH_CONCURRENCY,
      pollMs: parsed.WORKER_POLL_MS,
      leaseMs: parsed.WORKER_LEASE_MS,
      importStaleMs: parsed.IMPORT_STALE_MS,
      maxRetries: parsed.WORKER_MAX_RETRIES,
      retryBaseMs: parsed.WORKER_RETRY_BASE_MS,
    },
    commission: { tariffs: parsed.COMMISSION_TARIFFS, defaultPercent: parsed.COMMISSION_ESTIMATE_PERCENT },
    breaker: {
      troubleCalls: parsed.PARTNER_BREAKER_TROUBLE_CALLS,
      troublePaths: parsed.PARTNER_BREAKER_TROUBLE_PATHS,
      probeMaxMs: parsed.PARTNER_BREAKER_PROBE_MAX_MS,
    },
    partnerBudget: {
      callsPerSecond: parsed.PARTNER_CALLS_PER_SECOND ?? parsed.WORKER_RATE_LIMIT,
      callsInFlight: parsed.PARTNER_CALLS_IN_FLIGHT,
    },
    batchLimits: { maxRows: parsed.BATCH_MAX_ROWS, maxBytes: parsed.BATCH_MAX_FILE_BYTES },
    duplicateWindowDays: parsed.DUPLICATE_WINDOW_DAYS,
    schedule: { horizonDays: parsed.SCHEDULE_HORIZON_DAYS, forecastLeadMs: parsed.SCHEDULE_FORECAST_LEAD_HOURS },
    cardData: {
      key: parsed.PAYOUT_DATA_KEY,
      keyFile: parsed.PAYOUT_DATA_KEY_FILE,
      oldKeys: (parsed.PAYOUT_DATA_KEYS_OLD ?? '')
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== ''),
      retentionDays: parsed.CARD_DATA_RETENTION_DAYS,
    },
    metrics: { port: parsed.METRICS_PORT, host: parsed.METRICS_HOST },
    events: {
      allowLocalEndpoints: parsed.EVENTS_ALLOW_LOCAL_ENDPOINTS ?? false,
      timeoutMs: parsed.EVENT_DELIVERY_TIMEOUT_MS,
      retryBaseMs: parsed.EVENT_RETRY_BASE_MS,
      retryMaxMs: parsed.EVENT_RETRY_MAX_MS,
      retryForMs: parsed.EVENT_RETRY_FOR_MS,
      secretOverlapMs: parsed.EVENT_SECRET_OVERLAP_MS,
      logRetentionMs: parsed.EVENT_LOG_RETENTION_DAYS * 86_400_000,
      pollMs: parsed.EVENT_POLL_MS,
      concurrency: parsed.EVENT_DELIVERY_CONCURRENCY,
    },
    sandbox: Object.fromEntries(
      Object.keys(sandboxSettingsSchema.shape).map((name) => [name, parsed[name as keyof SandboxSettings]]),
    ) as SandboxSettings,
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

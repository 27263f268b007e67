import { z } from 'zod';
import {
  decimalAmount,
  documented,
  emptyToUndefined,
  logLevel,
  nonNegativeInt,
  optionalString,
  parseEnv,
  port,
  positiveInt,
  rate,
  type Env,
} from './zod-helpers.ts';

export const EMBEDDED_AGENT_ID = 'sandbox-agent';

const faultRate = (description: string) => documented(rate, '`0`', description);
/** The rates below that the table of fault kinds in docs/sandbox.md explains. */
const otherFaultKind = (kind: string) =>
  faultRate(
    `Share of calls answered as \`${kind}\` (see the [fault kinds](../sandbox.md#sandbox-only-routes)). All rates together are at most 1.`,
  );

/**
 * The sandbox's behaviour: read by `npm run sandbox` and by the gateway for its embedded
 * sandbox alike. The balance is large enough for `samples:generate` files of a million rows.
 */
export const sandboxSettingsSchema = z.object({
  SANDBOX_BALANCE: documented(
    decimalAmount('100000000000.00'),
    '`100000000000.00`',
    'Starting balance (RUB) of a new sandbox directory: enough for `samples:generate` files of a million rows (2,000 rows total about 50.4 million with commission).',
  ),
  SANDBOX_OVERDRAFT: documented(decimalAmount('0.00'), '`0.00`', 'Allowed overdraft (RUB).'),
  SANDBOX_EXPIRY_MS: documented(
    positiveInt(24 * 60 * 60 * 1000),
    '`86400000` (24 h)',
    'A READY payment not executed by then becomes EXPIRED.',
  ),
  SANDBOX_IN_PROGRESS_MS: documented(nonNegativeInt(3_000), '`3000`', 'How long IN_PROGRESS lasts before it settles.'),
  SANDBOX_WEBHOOK_ATTEMPTS: documented(positiveInt(8), '`8`', 'Webhook delivery attempts.'),
  SANDBOX_WEBHOOK_BACKOFF_MS: documented(positiveInt(500), '`500`', 'The first delay between webhook delivery attempts (it doubles).'),
  SANDBOX_LATENCY_MS: documented(nonNegativeInt(0), '`0`', 'Added latency of every answer: the fixed part.'),
  SANDBOX_JITTER_MS: documented(
    nonNegativeInt(0),
    '`0`',
    'Added latency of every answer: the most of a random part added to `SANDBOX_LATENCY_MS`.',
  ),
  SANDBOX_FAIL_BEFORE_RATE: faultRate('Share of calls (0..1) answered 500 without taking effect.'),
  SANDBOX_FAIL_AFTER_RATE: faultRate('Share answered 500 after taking effect (the ambiguous case).'),
  SANDBOX_FAIL_BEFORE_HTML_RATE: otherFaultKind('fail-before-html'),
  SANDBOX_FAIL_AFTER_HTML_RATE: otherFaultKind('fail-after-html'),
  SANDBOX_DROP_BEFORE_RATE: otherFaultKind('drop-before'),
  SANDBOX_DROP_RATE: faultRate('Share whose connection is cut after taking effect.'),
  SANDBOX_SLOW_RATE: faultRate('Share answered only after `SANDBOX_SLOW_MS` (past client timeouts).'),
  SANDBOX_RATE_LIMIT_RATE: otherFaultKind('rate-limit'),
  SANDBOX_TRUNCATE_RATE: otherFaultKind('truncate-after'),
  SANDBOX_CALLS_PER_SECOND: documented(
    nonNegativeInt(0),
    '`0` (none)',
    "The sandbox partner's rate limit: calls a second, bursts up to a second's worth; a call beyond it is answered 429 with Retry-After and has no effect. A test feature for the partner budget.",
  ),
  SANDBOX_SLOW_MS: documented(nonNegativeInt(30_000), '`30000`', 'How late a call drawn by `SANDBOX_SLOW_RATE` is answered.'),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

/** `npm run sandbox`: the standalone sandbox's own variables, then the settings it shares with the embedded one. */
export const sandboxEnvSchema = z.object({
  SANDBOX_PORT: documented(port(4010), '`4010`', 'Port.'),
  HOST: documented(optionalString, '`127.0.0.1`', 'Interface.'),
  DATA_DIR: documented(
    z.preprocess(emptyToUndefined, z.string().default('./.data')),
    '`./.data`',
    'Holds `keys/dev-public.pem` and, unless `SANDBOX_DATA_DIR` is set, `sandbox-standalone/`.',
  ),
  LOG_LEVEL: documented(logLevel, '`info`', "As the gateway's."),
  PAYOUT_AGENT_ID: documented(
    z.preprocess(emptyToUndefined, z.string().default(EMBEDDED_AGENT_ID)),
    '`sandbox-agent`',
    'The one agent it serves; other agents get 403.',
  ),
  PAYOUT_API_TOKEN: documented(
    z.preprocess(emptyToUndefined, z.string().default('sandbox-token')),
    '`sandbox-token`',
    'The bearer token it accepts.',
  ),
  PAYOUT_PUBLIC_KEY_FILE: documented(
    optionalString,
    '`DATA_DIR/keys/dev-public.pem` (made if missing)',
    'Public key that checks creation signatures.',
  ),
  PAYOUT_WEBHOOK_SECRET: documented(
    z.preprocess(emptyToUndefined, z.string().default('sandbox-webhook-secret')),
    '`sandbox-webhook-secret`',
    'HMAC key for webhooks it sends.',
  ),
  SANDBOX_DATA_DIR: documented(
    optionalString,
    '`DATA_DIR/sandbox-standalone`',
    'Where `npm run sandbox` keeps its state (the embedded one uses `DATA_DIR/sandbox`).',
  ),
  ...sandboxSettingsSchema.shape,
});

export type SandboxEnv = z.infer<typeof sandboxEnvSchema>;

export function loadSandboxEnv(env: Env): SandboxEnv {
  return parseEnv(sandboxEnvSchema, env);
}

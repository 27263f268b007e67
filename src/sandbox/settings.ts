import { ConfigError } from '../config/config-error.ts';
import type { SandboxSettings } from '../config/env.ts';
import { ratesFitOneRoll, type FaultRates } from './faults.ts';
import type { SandboxOptions } from './server.ts';

/** What SANDBOX_* sets, the same for the standalone sandbox and the gateway's embedded one. */
export type SandboxBehaviour = Pick<
  SandboxOptions,
  'balance' | 'overdraft' | 'expiryMs' | 'inProgressMs' | 'webhookAttempts' | 'webhookBackoffMs' | 'faults' | 'callsPerSecond'
>;

export function sandboxBehaviour(settings: SandboxSettings): SandboxBehaviour {
  const faults: Partial<FaultRates> = {
    latencyMs: settings.SANDBOX_LATENCY_MS,
    jitterMs: settings.SANDBOX_JITTER_MS,
    failBeforeRate: settings.SANDBOX_FAIL_BEFORE_RATE,
    failAfterRate: settings.SANDBOX_FAIL_AFTER_RATE,
    failBeforeHtmlRate: settings.SANDBOX_FAIL_BEFORE_HTML_RATE,
    failAfterHtmlRate: settings.SANDBOX_FAIL_AFTER_HTML_RATE,
    dropBeforeRate: settings.SANDBOX_DROP_BEFORE_RATE,
    dropRate: settings.SANDBOX_DROP_RATE,
    slowRate: settings.SANDBOX_SLOW_RATE,
    rateLimitRate: settings.SANDBOX_RATE_LIMIT_RATE,
    truncateRate: settings.SANDBOX_TRUNCATE_RATE,
    slowMs: settings.SANDBOX_SLOW_MS,
  };
  // One roll picks at most one fault, so rates adding up to more than 1 cannot all hold.
  if (!ratesFitOneRoll(faults)) {
    const named = Object.entries(settings)
      .filter(([name, value]) => name.endsWith('_RATE') && typeof value === 'number' && value > 0)
      .map(([name]) => name);
    throw new ConfigError([{ variable: named.join(', '), message: 'the fault rates add up to more than 1' }]);
  }
  return {
    balance: settings.SANDBOX_BALANCE,
    overdraft: settings.SANDBOX_OVERDRAFT,
    expiryMs: settings.SANDBOX_EXPIRY_MS,
    inProgressMs: settings.SANDBOX_IN_PROGRESS_MS,
    webhookAttempts: settings.SANDBOX_WEBHOOK_ATTEMPTS,
    webhookBackoffMs: settings.SANDBOX_WEBHOOK_BACKOFF_MS,
    faults,
    callsPerSecond: settings.SANDBOX_CALLS_PER_SECOND,
  };
}

/**
 * Only for src/partner/partner-breaker.ts, which still imports Retry-After's parser from here;
 * everything else takes it from src/lib/retry.ts. Goes when the breaker does too.
 */
export { retryAfterMs } from '../lib/retry.ts';

import type { PayoutClient } from '../payout/client.ts';
import { PayoutApiError, PayoutError, PayoutNetworkError } from '../payout/errors.ts';
import type { Payment } from '../payout/models.ts';

/**
 * How long a person's read of a payment the gateway has a record of waits for the partner.
 * A read is a person waiting (the page, `payout payment get`): during an outage the client's
 * retries with backoff took 23–38 s to end in the record anyway (issue 38). One attempt, cut
 * here, then the record answers, saying the partner did not; the read-back job keeps asking
 * in the background with its own retries (read-back.ts).
 */
export const LIVE_READ_MS = 1_500;

export type LiveRead = { upstream: Payment } | { notFound: true } | { failure: PayoutError };

/**
 * The partner's view of a payment now. `recorded`: the gateway can answer from its record, so
 * the partner gets one attempt within LIVE_READ_MS; otherwise the partner's answer is all there
 * is, and the client's retries stand. A partner that does not answer (down, throttling,
 * failing, the breaker open, too slow) is a `failure`; any other error is thrown.
 */
export async function readLive(client: PayoutClient, paymentId: string, recorded: boolean): Promise<LiveRead> {
  const deadline = recorded ? AbortSignal.timeout(LIVE_READ_MS) : undefined;
  try {
    return { upstream: await client.getPayment(paymentId, recorded ? { signal: deadline, once: true } : {}) };
  } catch (error) {
    if (error instanceof PayoutApiError && error.code === 'payout.payment.not-found') return { notFound: true };
    if (deadline?.aborted === true) {
      return { failure: new PayoutNetworkError('headers', true, { method: 'GET', path: `/payments/${paymentId}` }, { cause: error }) };
    }
    if (error instanceof PayoutError && error.retryable) return { failure: error };
    throw error;
  }
}

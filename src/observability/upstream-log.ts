import type { Logger } from '../log/logger.ts';
import type { CallObserver, ObservedCall } from '../payout/call-hooks.ts';

/**
 * Observes Payout API calls for `next` (the metrics) and logs each failed one with what an
 * operator needs to ask the partner about it: the paymentId and the upstream's traceId.
 * A refusal is often the expected answer (an id already taken, a payment not found on
 * read-back), so it is info; anything else is a warning. A call given up by its caller
 * (a worker that lost its lease) is not a failure.
 */
export function loggingFailedCalls(logger: Logger, next: CallObserver): CallObserver {
  const log = logger.child({ component: 'payout-client' });
  return {
    onCall(call: ObservedCall) {
      next.onCall(call);
      if (call.outcome === 'ok' || call.outcome === 'aborted') return;
      const paymentId = /^\/payments\/([^/?]+)/.exec(call.path)?.[1];
      log[call.outcome === 'refused' ? 'info' : 'warn'](
        {
          method: call.method,
          path: call.path,
          outcome: call.outcome,
          code: call.code,
          ...(call.traceId === undefined ? {} : { traceId: call.traceId }),
          ...(paymentId === undefined ? {} : { paymentId: decodeURIComponent(paymentId) }),
          durationMs: Math.round(call.seconds * 1000),
        },
        'payout call failed',
      );
    },
  };
}

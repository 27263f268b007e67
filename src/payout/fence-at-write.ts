import type { Dispatcher } from 'undici';
import type { SendFence } from './call-hooks.ts';

/**
 * Asks a send's fence again as undici writes the request to its socket (decision 0027). The
 * first answer, in PayoutClient.call, is given before the request waits for a connection (a
 * new one to open, a free one in the pool): a process frozen in that wait and woken past its
 * lease would otherwise send on waking, after a cancel was answered. `onRequestStart` runs
 * synchronously right before the request's first byte is written, so what is left is the
 * write itself.
 */
export function fenceAtWrite(fence: SendFence): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) =>
    dispatch(options, {
      onRequestStart(controller, context) {
        const refusal = fence.refusal();
        if (refusal !== undefined) return controller.abort(refusal);
        return handler.onRequestStart?.(controller, context);
      },
      onRequestUpgrade: (...args) => handler.onRequestUpgrade?.(...args),
      onResponseStart: (...args) => handler.onResponseStart?.(...args),
      onResponseData: (...args) => handler.onResponseData?.(...args),
      onResponseEnd: (...args) => handler.onResponseEnd?.(...args),
      onResponseError: (...args) => handler.onResponseError?.(...args),
    });
}

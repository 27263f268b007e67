import type { IncomingMessage } from 'node:http';
import type { Operation } from './faults.ts';

/** Kept at most: the latest calls, enough for a test or a person to look at one request. */
const KEPT = 200;

export interface ReceivedCall {
  operation: Operation;
  method: string;
  /** Below the agent's path, as sent: /payments/p-1/execute. */
  path: string;
  paymentId?: string;
  /** The W3C trace context and request id the caller sent, as sent (absent when not sent). */
  traceparent?: string;
  tracestate?: string;
  requestId?: string;
}

/**
 * What the latest partner calls carried besides their body: a test compares the traceparent
 * the partner received with the gateway's trace (GET /_sandbox/received).
 */
export class ReceivedCalls {
  private readonly calls: ReceivedCall[] = [];

  note(req: IncomingMessage, operation: Operation, path: string, paymentId: string | undefined): void {
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const call: ReceivedCall = { operation, method: req.method ?? 'GET', path };
    if (paymentId !== undefined) call.paymentId = paymentId;
    const traceparent = header('traceparent');
    const tracestate = header('tracestate');
    const requestId = header('x-request-id');
    if (traceparent !== undefined) call.traceparent = traceparent;
    if (tracestate !== undefined) call.tracestate = tracestate;
    if (requestId !== undefined) call.requestId = requestId;
    this.calls.push(call);
    if (this.calls.length > KEPT) this.calls.shift();
  }

  list(): ReceivedCall[] {
    return [...this.calls];
  }
}

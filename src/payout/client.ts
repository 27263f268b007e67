import { createPrivateKey, type KeyObject } from 'node:crypto';
import { Agent, request } from 'undici';
import type { z } from 'zod';
import type { Logger } from '../log/logger.ts';
import { retryAfterMs, retryDelay, sleep, type BackoffOptions } from '../lib/retry.ts';
import {
  PartnerUnavailableError,
  PayoutApiError,
  PayoutError,
  PayoutNetworkError,
  PayoutResponseError,
  PaymentConflictError,
  PaymentOutcomeUnknownError,
  SendWithheldError,
  type NetworkPhase,
} from './errors.ts';
import {
  Balance,
  Balances,
  ErrorBody,
  Payment,
  PaymentId,
  ProviderInfo,
  ProviderSummary,
  type PaymentPayload,
  type ProviderCode,
} from './models.ts';
import { signPaymentAsync } from './signature.ts';
import { fenceAtWrite } from './fence-at-write.ts';
import { toNetworkError } from './network-failures.ts';
import type { CallBudgetGate, CallGate, CallObserver, CallOptions, CallOutcome, ObservedCall, SendFence } from './call-hooks.ts';
import { endpointOf } from './endpoint.ts';
import { requestScope, REQUEST_ID_HEADER } from '../log/request-id.ts';
import { inSpan, SpanKind, trace, traceHeaders, tracingOn } from '../log/spans.ts';

export interface PayoutClientOptions {
  baseUrl: string;
  agentId: string;
  apiToken: string;
  privateKeyPem: string;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Extra attempts after the first for calls that are safe to repeat. */
  maxRetries: number;
  backoff?: BackoffOptions;
  /** A Retry-After longer than this is not waited for: the error is returned instead. */
  maxRetryAfterMs?: number;
  logger?: Logger;
  random?: () => number;
}

export interface ListPaymentsQuery {
  limit?: number;
  offset?: number;
  /** YYYY-MM-DD */
  from?: string;
  /** YYYY-MM-DD */
  to?: string;
}

type Method = 'GET' | 'PUT' | 'POST';
interface CallSpec<T extends z.ZodType> {
  method: Method;
  path: string;
  schema: T;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Creates and executes only: asked right before the request leaves. */
  fence?: SendFence | undefined;
  /** Sent even while the gate refuses: the one call that tells whether the partner is back. */
  probe?: boolean;
}

/**
 * Typed client for the partner Payout API (spec: Endpoints). Reads are retried with
 * backoff; create and execute are sent once per call, and payments/attempt.ts decides
 * when one may be sent again.
 */
export class PayoutClient {
  readonly agentId: string;
  private readonly dispatcher: Agent;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly backoff: BackoffOptions;
  private readonly random: () => number;
  private readonly privateKey: KeyObject;
  private readonly observers: CallObserver[] = [];
  private gate: CallGate | undefined;
  private budget: CallBudgetGate | undefined;

  /** Connections to the partner at once (undici's pool per origin): more requests wait in its queue. */
  readonly connectionLimit = 64;

  constructor(private readonly options: PayoutClientOptions) {
    this.privateKey = createPrivateKey(options.privateKeyPem);
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.agentId = options.agentId;
    this.basePath = `${url.pathname.replace(/\/+$/, '')}/partner/payout/v2/agents/${encodeURIComponent(options.agentId)}`;
    this.backoff = options.backoff ?? { baseMs: 200, maxMs: 5_000 };
    this.random = options.random ?? Math.random;
    this.dispatcher = new Agent({
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      keepAliveTimeout: 10_000,
      connections: this.connectionLimit,
    });
  }

  getBalance(): Promise<Balance> {
    return this.read({ method: 'GET', path: '/balance', schema: Balance });
  }

  /** One balance read, not retried and sent even while the gate refuses calls: the breaker's probe. */
  probeBalance(): Promise<Balance> {
    return this.call({ method: 'GET', path: '/balance', schema: Balance, probe: true });
  }

  getBalances(): Promise<Balances> {
    return this.read({ method: 'GET', path: '/balances', schema: Balances });
  }

  listProviders(): Promise<ProviderSummary[]> {
    return this.read({ method: 'GET', path: '/providers', schema: ProviderSummary.array() });
  }

  getProvider(code: ProviderCode): Promise<ProviderInfo> {
    return this.read({ method: 'GET', path: `/providers/${encodeURIComponent(code)}`, schema: ProviderInfo });
  }

  getPayment(paymentId: string, options: CallOptions = {}): Promise<Payment> {
    const spec = { method: 'GET' as const, path: paymentPath(paymentId), schema: Payment, signal: options.signal };
    return options.once === true ? this.call(spec) : this.read(spec);
  }

  listPayments(query: ListPaymentsQuery = {}): Promise<Payment[]> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) params.set(key, String(value));
    }
    const search = params.size > 0 ? `?${params}` : '';
    return this.read({ method: 'GET', path: `/payments${search}`, schema: Payment.array() });
  }

  /**
   * One signed PUT, never repeated here: what a lost or garbled answer means for the
   * payment is decided by payments/attempt.ts, which reads the payment back.
   */
  async putPayment(paymentId: string, payload: PaymentPayload, options: CallOptions = {}): Promise<Payment> {
    PaymentId.parse(paymentId);
    const signature = await signPaymentAsync(this.privateKey, this.agentId, paymentId, payload);
    return this.call({
      method: 'PUT',
      path: paymentPath(paymentId),
      schema: Payment,
      body: payload,
      headers: { 'content-type': 'application/json', signature },
      signal: options.signal,
      fence: options.fence,
    });
  }

  /** One POST execute, never repeated here (see putPayment). */
  async postExecute(paymentId: string, options: CallOptions = {}): Promise<Payment> {
    PaymentId.parse(paymentId);
    return this.call({
      method: 'POST',
      path: `${paymentPath(paymentId)}/execute`,
      schema: Payment,
      signal: options.signal,
      fence: options.fence,
    });
  }

  /** Reports every call from now on to `observer` too (the runtime's metrics, the partner breaker). */
  observe(observer: CallObserver): void {
    this.observers.push(observer);
  }

  /** Asks `gate` before every call but a probe (the partner breaker). */
  guard(gate: CallGate): void {
    this.gate = gate;
  }

  /** Waits on `budget` before every call, probes too (partner/budget/: the deployment's calls per second and in flight). */
  limit(budget: CallBudgetGate): void {
    this.budget = budget;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /** Safe-to-repeat calls: network failures, 5xx and 429 are retried with backoff. */
  private async read<T extends z.ZodType>(spec: CallSpec<T>): Promise<z.infer<T>> {
    let lastError: PayoutError | undefined;
    for (let attempt = 0; attempt <= this.options.maxRetries; attempt++) {
      if (attempt > 0) await this.pause(attempt - 1, lastError);
      spec.signal?.throwIfAborted();
      try {
        return await this.call(spec);
      } catch (error) {
        // A closed gate is not asked again at once: its probe decides when calls resume.
        if (!(error instanceof PayoutError) || !error.retryable || error instanceof PartnerUnavailableError) throw error;
        lastError = error;
      }
    }
    throw lastError!;
  }

  private async pause(retry: number, error: PayoutError | undefined): Promise<void> {
    const hinted = error instanceof PayoutApiError ? retryAfterMs(error.retryAfter) : undefined;
    const limit = this.options.maxRetryAfterMs ?? 30_000;
    if (hinted !== undefined && hinted > limit) throw error;
    const delay = retryDelay(retry, this.backoff, hinted, this.random);
    this.options.logger?.debug({ retry: retry + 1, delayMs: delay, code: error?.code }, 'retrying payout call');
    await sleep(delay);
  }

  /** One request and its answer; every call that ends is reported to the observer (metrics, the failure log). */
  private async call<T extends z.ZodType>(spec: CallSpec<T>): Promise<z.infer<T>> {
    // The budget first: the fence and the gate below answer for the moment the call leaves, not before its wait.
    const permit = await this.budget?.acquire(spec.signal);
    try {
      return await this.callNow(spec);
    } finally {
      permit?.release();
    }
  }

  private async callNow<T extends z.ZodType>(spec: CallSpec<T>): Promise<z.infer<T>> {
    // Refused here, nothing is sent and nothing observed: the fence's or the gate's own state says why.
    // Nothing is awaited between the fence's answer and the request (send is synchronous up to it).
    const refusal =
      spec.fence?.refusal() ?? (spec.probe === true ? undefined : this.gate?.refusal({ method: spec.method, path: spec.path }));
    if (refusal !== undefined) throw refusal;
    const started = performance.now();
    try {
      const result = await this.send(spec);
      this.report({ method: spec.method, path: spec.path, outcome: 'ok', seconds: (performance.now() - started) / 1000 });
      return result;
    } catch (error) {
      // Withheld as it was written (fence-at-write.ts): nothing sent, nothing to observe, as above.
      if (error instanceof SendWithheldError) throw error;
      const retryAfter = error instanceof PayoutApiError ? retryAfterMs(error.retryAfter) : undefined;
      this.report({
        method: spec.method,
        path: spec.path,
        outcome: outcomeOf(error, spec.signal),
        seconds: (performance.now() - started) / 1000,
        ...(error instanceof PayoutError ? { code: error.code } : {}),
        ...(error instanceof PayoutApiError ? { traceId: error.traceId } : {}),
        ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
      });
      throw error;
    }
  }

  private report(call: ObservedCall): void {
    for (const observer of this.observers) observer.onCall(call);
  }

  /**
   * With tracing on, each request is a client span whose traceparent goes with it, so the
   * partner's records of the call join the gateway's trace.
   */
  private send<T extends z.ZodType>(spec: CallSpec<T>): Promise<z.infer<T>> {
    if (!tracingOn()) return this.sendOnce(spec);
    const paymentId = /^\/payments\/([^/?]+)/.exec(spec.path)?.[1];
    return inSpan(
      endpointOf(spec.method, spec.path),
      {
        'http.request.method': spec.method,
        'url.template': endpointOf(spec.method, spec.path).slice(spec.method.length + 1),
        'server.address': new URL(this.origin).hostname,
        ...(paymentId === undefined ? {} : { 'payout.payment_id': decodeURIComponent(paymentId) }),
      },
      () => this.sendOnce(spec),
      { kind: SpanKind.CLIENT },
    );
  }

  private async sendOnce<T extends z.ZodType>(spec: CallSpec<T>): Promise<z.infer<T>> {
    const path = `${this.basePath}${spec.path}`;
    const what = { method: spec.method, path: spec.path };
    const started = performance.now();
    let status: number;
    let text: string;
    let retryAfter: string | undefined;
    let phase: NetworkPhase = 'connect';
    try {
      const response = await request(`${this.origin}${path}`, {
        method: spec.method,
        dispatcher: spec.fence === undefined ? this.dispatcher : this.dispatcher.compose(fenceAtWrite(spec.fence)),
        headers: {
          authorization: `Bearer ${this.options.apiToken}`,
          accept: 'application/json',
          ...spec.headers,
          // The id of the request being served (absent for the worker's own calls), so the partner's logs can be matched to ours.
          ...requestIdHeader(),
          ...traceHeaders(),
        },
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: spec.signal,
      });
      phase = 'body';
      status = response.statusCode;
      const header = response.headers['retry-after'];
      retryAfter = Array.isArray(header) ? header[0] : header;
      text = await response.body.text();
    } catch (error) {
      // The fence refused as the request was written: nothing left (fence-at-write.ts). Asked
      // before the signal, so a lease lost in the same tick still reads as "not sent".
      if (error instanceof SendWithheldError) throw error;
      if (spec.signal?.aborted) throw spec.signal.reason;
      throw toNetworkError(error, phase, what);
    }
    const durationMs = Math.round(performance.now() - started);
    if (tracingOn()) trace.getActiveSpan()?.setAttribute('http.response.status_code', status);
    this.options.logger?.debug({ ...what, status, durationMs }, 'payout call');
    const json = parseJson(text);
    if (status < 200 || status > 299) {
      const body = ErrorBody.safeParse(json);
      if (!body.success) {
        throw new PayoutResponseError(status, what, `error response is not an Error object: ${snippet(text)}`, json === undefined);
      }
      if (tracingOn()) trace.getActiveSpan()?.setAttribute('payout.upstream_trace_id', body.data.traceId);
      throw new PayoutApiError(status, body.data, what, retryAfter);
    }
    if (json === undefined) throw new PayoutResponseError(status, what, `the body is not JSON: ${snippet(text)}`, true);
    const parsed = spec.schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PayoutResponseError(status, what, `${issue?.path.join('.') || '(body)'}: ${issue?.message}`);
    }
    return parsed.data;
  }
}

function requestIdHeader(): Record<string, string> {
  const requestId = requestScope.getStore()?.requestId;
  return requestId === undefined ? {} : { [REQUEST_ID_HEADER]: requestId };
}

function outcomeOf(error: unknown, signal: AbortSignal | undefined): CallOutcome {
  if (signal?.aborted) return 'aborted';
  if (error instanceof PayoutApiError) return error.httpStatus === 429 ? 'throttled' : error.httpStatus >= 500 ? 'server-error' : 'refused';
  if (error instanceof PayoutNetworkError) return error.code === 'network.timeout' ? 'timeout' : 'network-error';
  return 'bad-response';
}

function paymentPath(paymentId: string): string {
  return `/payments/${encodeURIComponent(paymentId)}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function snippet(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

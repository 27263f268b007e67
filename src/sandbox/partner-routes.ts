import { providerCodes, type PaymentPayload } from '../payout/models.ts';
import { verifyPaymentSignature } from '../payout/signature.ts';
import { SandboxApiError } from './api-error.ts';
import { findProvider, sandboxProviders } from './catalogue.ts';
import { DAY_MS, utcDate } from './clock.ts';
import type { Operation } from './faults.ts';
import { SEARCH_WINDOW_DAYS, type ListQuery, type SandboxLedger } from './ledger/ledger.ts';
import { checkPaymentId, parsePayloadShape, validatePayment } from './validate-payment.ts';

export interface PartnerRequest {
  method: string;
  agentId: string;
  /** Path below /partner/payout/v2/agents/{agentId}. */
  rest: string[];
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: () => Promise<string>;
}

export interface PartnerRoute {
  operation: Operation;
  /** For create and execute: whose calls the inspection routes count. */
  paymentId?: string;
  /** Runs the operation; its effect happens synchronously once `run` is called. */
  run: () => Promise<unknown>;
}

export interface PartnerContext {
  agentId: string;
  publicKeyPem: string;
  ledger: SandboxLedger;
  now: () => number;
}

const MAX_LIST_LIMIT = 100;

/** Maps a request to its operation, or throws the spec's error for a path it does not serve. */
export function routePartner(request: PartnerRequest, context: PartnerContext): PartnerRoute {
  const { method, rest } = request;
  const [resource, id, action, ...extra] = rest;
  const is = (m: string, ...shape: (string | undefined)[]) => method === m && shape.length === rest.length && extra.length === 0;

  if (resource === 'balance' && is('GET', resource)) {
    return { operation: 'balance', run: async () => context.ledger.balance() };
  }
  if (resource === 'balances' && is('GET', resource)) {
    return { operation: 'balances', run: async () => context.ledger.balances() };
  }
  if (resource === 'providers' && is('GET', resource)) {
    return {
      operation: 'providers',
      run: async () => sandboxProviders.map((p) => ({ providerCode: p.code, name: p.info.name })),
    };
  }
  if (resource === 'providers' && id !== undefined && is('GET', resource, id)) {
    return { operation: 'provider', run: async () => providerInfo(id) };
  }
  if (resource === 'payments' && is('GET', resource)) {
    const query = listQuery(request.query, context.now());
    return { operation: 'list', run: async () => context.ledger.list(query) };
  }
  if (resource === 'payments' && id !== undefined && is('GET', resource, id)) {
    return { operation: 'get', run: async () => context.ledger.get(id) };
  }
  if (resource === 'payments' && id !== undefined && is('PUT', resource, id)) {
    return { operation: 'create', paymentId: id, run: () => createPayment(request, id, context) };
  }
  if (resource === 'payments' && id !== undefined && action === 'execute' && is('POST', resource, id, action)) {
    return {
      operation: 'execute',
      paymentId: id,
      run: async () => {
        checkPaymentId(id);
        return context.ledger.execute(id);
      },
    };
  }
  throw new SandboxApiError('validation.error', `no method ${method} ${['', ...rest].join('/')}`, undefined, {
    httpStatus: 404,
  });
}

function providerInfo(code: string) {
  const provider = findProvider(code);
  if (provider === undefined) {
    throw new SandboxApiError('payout.provider.not-found', `provider ${code} not found`, {
      providerCode: [`must be one of ${providerCodes.join(', ')}`],
    });
  }
  return provider.info;
}

async function createPayment(request: PartnerRequest, paymentId: string, context: PartnerContext) {
  checkPaymentId(paymentId);
  const contentType = String(request.headers['content-type'] ?? '');
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new SandboxApiError('validation.error', 'Content-Type must be application/json', {
      'Content-Type': ['must be application/json'],
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(await request.body());
  } catch {
    throw new SandboxApiError('validation.error', 'the body is not valid JSON', { body: ['invalid JSON'] });
  }
  const payload: PaymentPayload = parsePayloadShape(json);
  const signature = request.headers['signature'];
  if (typeof signature !== 'string' || signature === '') {
    throw new SandboxApiError('auth.failed', 'the Signature header is missing', { Signature: ['is required'] });
  }
  if (!verifyPaymentSignature(context.publicKeyPem, context.agentId, paymentId, payload, signature)) {
    throw new SandboxApiError('auth.failed', 'the Signature does not verify with the partner key', {
      Signature: ['does not match the payment'],
    });
  }
  context.ledger.assertAbsent(paymentId);
  const provider = validatePayment(payload);
  return context.ledger.create(paymentId, payload, provider);
}

function listQuery(query: URLSearchParams, now: number): ListQuery {
  const cause: Record<string, string[]> = {};
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = query.get(name);
    if (raw === null) return fallback;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= min && value <= max)) cause[name] = [`must be an integer from ${min} to ${max}`];
    return value;
  };
  const date = (name: string) => {
    const raw = query.get(name);
    if (raw === null) return undefined;
    const epoch = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(epoch) || utcDate(epoch) !== raw) {
      cause[name] = ['must be a date YYYY-MM-DD'];
      return undefined;
    }
    return epoch;
  };
  const limit = integer('limit', 20, 1, MAX_LIST_LIMIT);
  const offset = integer('offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const toEpoch = date('to') ?? Date.parse(`${utcDate(now)}T00:00:00Z`);
  const from = utcDate(date('from') ?? toEpoch - SEARCH_WINDOW_DAYS * DAY_MS);
  const to = utcDate(toEpoch);
  if (cause.from === undefined && cause.to === undefined && from > to) cause.from = ['must not be after to'];
  if (Object.keys(cause).length > 0) {
    throw new SandboxApiError('validation.error', 'invalid payment list parameters', cause);
  }
  return { limit, offset, from, to };
}

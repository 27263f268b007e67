import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { MONEY_VALUE } from '../money/money.ts';
import { PAYMENT_ID, providerCodes, statusCodes } from '../payout/models.ts';
import type { Balance } from '../payout/models.ts';
import { SandboxApiError } from './api-error.ts';
import type { PartnerRateLimit } from './partner-rate-limit.ts';
import { callKinds, type CallCounts, type CallCountsView, type CallWindow } from './call-counts.ts';
import { findProvider } from './catalogue.ts';
import { formatDateTime } from './clock.ts';
import { DURATION_HINT, parseDuration } from './duration.ts';
import type { PaymentChange, SandboxLedger } from './ledger/ledger.ts';
import { allCallKinds, outageModes, outageStatuses, type Outage, type OutageView } from './outage.ts';

/**
 * Test features of the sandbox, not of the partner API: what reconciliation tests and
 * benchmarks need to make every discrepancy without touching the gateway's database, and
 * the payday trouble (an outage, the balance at run time, call counts) the fault suite needs.
 * They live under /_sandbox/ (bearer token as the rest); the partner paths stay the spec's.
 *
 * | route                               | does                                                                 |
 * |-------------------------------------|----------------------------------------------------------------------|
 * | POST   /_sandbox/payments           | payments made behind the gateway's back (one, or `count` of them)    |
 * | PATCH  /_sandbox/payments/{id}      | what the upstream holds for a payment changes; its webhook is lost   |
 * | POST   /_sandbox/list-growth        | the next `reads` list calls each make `paymentsPerRead` payments first |
 * | GET, DELETE /_sandbox/list-growth   | what is left of it; stop it                                          |
 * | GET    /_sandbox/list-calls         | list calls (endpoint 7) since the start or the last calls reset      |
 * | POST   /_sandbox/outage             | refuse connections, hang, or answer 503/429 for a time (outage.ts)   |
 * | GET, DELETE /_sandbox/outage        | the outage in force; end it                                          |
 * | GET, POST /_sandbox/balance         | the balance; set it or add to it                                     |
 * | GET, DELETE /_sandbox/calls         | partner calls per kind (call-counts.ts); reset them                  |
 */
const money = z.string().regex(MONEY_VALUE, 'must be an amount with two decimals, such as 1500.00');
const fields = z.record(z.string(), z.string());
/** Largest seeding in one call: a benchmark's day of payments. */
export const MAX_SEED = 200_000;
/** Ids listed in a seeding answer at most. */
const LISTED_IDS = 1_000;

const SeedBody = z
  .object({
    paymentId: z.string().regex(PAYMENT_ID, 'must be 1 to 36 printable characters without spaces').optional(),
    idPrefix: z.string().max(28).regex(/^\S*$/, 'must have no spaces').optional(),
    count: z.number().int().min(1).max(MAX_SEED).default(1),
    amount: money,
    providerCode: z.enum(providerCodes).default('sbp-b2c'),
    fields: fields.optional(),
    status: z.enum(['COMPLETED', 'FAILED', 'IN_PROGRESS', 'READY']).default('COMPLETED'),
    errorCode: z.string().min(1).optional(),
    creationDateTime: z.iso.datetime({ offset: true }).optional(),
    commission: money.optional(),
  })
  .strict()
  .refine((body) => body.paymentId === undefined || body.count === 1, {
    message: 'paymentId names one payment: leave count out',
    path: ['count'],
  });

const ChangeBody = z
  .object({
    status: z.enum(statusCodes).optional(),
    errorCode: z.string().min(1).optional(),
    errorMessage: z.string().min(1).optional(),
    commission: money.optional(),
    amount: money.optional(),
    fields: fields.optional(),
    notify: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).some((key) => key !== 'notify'), {
    message: 'name at least one of status, errorCode, errorMessage, commission, amount, fields',
  });

const GrowthBody = z
  .object({
    reads: z.number().int().min(1).max(10_000),
    paymentsPerRead: z.number().int().min(1).max(10_000),
    idPrefix: z.string().max(24).regex(/^\S*$/, 'must have no spaces').optional(),
  })
  .strict();

const OutageBody = z
  .object({
    mode: z.enum(outageModes),
    for: z.string().refine((text) => parseDuration(text) !== undefined, `must be ${DURATION_HINT}, at most 24h`),
    kinds: z.array(z.enum(callKinds)).min(1).optional(),
    status: z.literal(outageStatuses).optional(),
    retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
    then: z.enum(['answer', 'drop']).optional(),
  })
  .strict()
  .superRefine((body, context) => {
    const only = (field: 'status' | 'retryAfterSeconds' | 'then', mode: string) => {
      if (body[field] !== undefined && body.mode !== mode)
        context.addIssue({ code: 'custom', path: [field], message: `applies to mode "${mode}" only` });
    };
    if (body.mode === 'refuse' && body.kinds !== undefined) {
      context.addIssue({ code: 'custom', path: ['kinds'], message: 'refuse closes the whole port: it cannot be limited to kinds' });
    }
    if (body.mode === 'status' && body.status === undefined)
      context.addIssue({ code: 'custom', path: ['status'], message: 'must be 503 or 429' });
    only('status', 'status');
    only('retryAfterSeconds', 'status');
    only('then', 'hang');
  });

const BalanceBody = z
  .object({ set: money.optional(), add: money.optional() })
  .strict()
  .refine((body) => (body.set === undefined) !== (body.add === undefined), { message: 'give one of set or add' });

/** Default recipients of seeded payments: valid, and the sandbox's success value. */
const defaultFields: Record<string, Record<string, string>> = {
  'sbp-b2c': { account: '79001234567', bankId: 'sbp_bank_id_success' },
  'sbp-fio': { account: '79001234567', bankId: 'sbp_bank_id_success', lastName: 'Ivanova', firstName: 'Anna' },
  'bank-card-russia': { pan: '2200000000000004' },
  'bank-card-russia-fio': { pan: '2200000000000004', lastName: 'Ivanova', firstName: 'Anna' },
  'bank-card-russia-gph': { pan: '2200000000000004', lastName: 'Ivanova', firstName: 'Anna', purpose: 'Design services' },
  'bank-card-token': { account: 'token_success' },
};

export interface SeedAnswer {
  created: number;
  /** Left out past LISTED_IDS: the ids are idPrefix + 1 … count. */
  paymentIds?: string[];
  idPrefix?: string;
}

export class SandboxTestFeatures {
  private growth: { reads: number; paymentsPerRead: number; idPrefix: string; made: number } | undefined;

  constructor(
    private readonly ledger: SandboxLedger,
    private readonly outage: Outage,
    private readonly counts: CallCounts,
    private readonly rateLimit: PartnerRateLimit,
  ) {}

  seed(body: unknown): SeedAnswer {
    const request = parse(SeedBody, body, 'a payment made behind the gateway’s back');
    const provider = findProvider(request.providerCode)!;
    const idPrefix = request.idPrefix ?? `behind-${randomBytes(4).toString('hex')}-`;
    const paymentIds =
      request.paymentId !== undefined ? [request.paymentId] : Array.from({ length: request.count }, (_, i) => `${idPrefix}${i + 1}`);
    const tooLong = paymentIds.find((id) => !PAYMENT_ID.test(id));
    if (tooLong !== undefined) {
      throw new SandboxApiError('validation.error', `paymentId ${tooLong} would be longer than 36 characters`, {
        idPrefix: ['is too long for this count'],
      });
    }
    const made = this.ledger.seed({
      paymentIds,
      amount: request.amount,
      provider,
      fields: request.fields ?? defaultFields[provider.code]!,
      status: request.status,
      ...(request.errorCode === undefined ? {} : { errorCode: request.errorCode }),
      ...(request.creationDateTime === undefined ? {} : { createdAt: Date.parse(request.creationDateTime) }),
      ...(request.commission === undefined ? {} : { commission: request.commission }),
    });
    return made.length <= LISTED_IDS
      ? { created: made.length, paymentIds: made.map((p) => p.paymentId) }
      : { created: made.length, idPrefix };
  }

  alter(paymentId: string, body: unknown) {
    const change: PaymentChange = parse(ChangeBody, body, 'a payment change');
    return this.ledger.alter(paymentId, change);
  }

  startGrowth(body: unknown) {
    const request = parse(GrowthBody, body, 'list growth');
    this.growth = { ...request, idPrefix: request.idPrefix ?? `grown-${randomBytes(3).toString('hex')}-`, made: 0 };
    return this.growthState();
  }

  stopGrowth(): void {
    this.growth = undefined;
  }

  growthState() {
    return this.growth === undefined
      ? { reads: 0, paymentsPerRead: 0 }
      : { reads: this.growth.reads, paymentsPerRead: this.growth.paymentsPerRead, made: this.growth.made };
  }

  listCalls() {
    return { calls: this.counts.listCalls };
  }

  /** Partner calls per kind since the start or the last reset, and the rate limit's 429s (partner-rate-limit.ts). */
  calls(): CallCountsView & { rateLimit: { callsPerSecond: number; throttled: number } } {
    return {
      ...this.counts.view(formatDateTime),
      rateLimit: { callsPerSecond: this.rateLimit.limit, throttled: this.rateLimit.throttled },
    };
  }

  /** Partner calls per kind that arrived in a window (ISO instants, milliseconds kept). */
  callsBetween(from: string, to: string): CallWindow & { from: string; to: string } {
    const fromMs = Date.parse(from);
    const toMs = Date.parse(to);
    if (Number.isNaN(fromMs) || Number.isNaN(toMs) || toMs < fromMs) {
      throw new SandboxApiError(
        'validation.error',
        `calls: from and to must be ISO instants, from before to (got from=${JSON.stringify(from)}, to=${JSON.stringify(to)})`,
        undefined,
        { httpStatus: 400 },
      );
    }
    return { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), ...this.counts.between(fromMs, toMs) };
  }

  /** Starts counting again; answers the counts up to now. */
  resetCalls(): CallCountsView {
    const counted = this.calls();
    this.counts.reset();
    this.rateLimit.resetCount();
    return counted;
  }

  startOutage(body: unknown): Promise<OutageView> {
    const request = parse(OutageBody, body, 'outage');
    return this.outage.start({
      mode: request.mode,
      forMs: parseDuration(request.for)!,
      kinds: request.kinds ?? allCallKinds,
      ...(request.status === undefined ? {} : { status: request.status }),
      ...(request.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: request.retryAfterSeconds }),
      ...(request.mode === 'hang' ? { then: request.then ?? 'answer' } : {}),
    });
  }

  outageState(): { outage: OutageView | null } {
    return { outage: this.outage.current() ?? null };
  }

  async endOutage(): Promise<{ ended: OutageView | null }> {
    return { ended: (await this.outage.clear()) ?? null };
  }

  /** Sets the balance or adds to it; money IN_PROGRESS payments hold is already out of it. */
  changeBalance(body: unknown): Balance & { previousBalance: Balance['balance'] } {
    const request = parse(BalanceBody, body, 'balance change');
    const previousBalance = this.ledger.balance().balance;
    this.ledger.adjustBalance(request.set === undefined ? { add: request.add! } : { set: request.set });
    return { ...this.ledger.balance(), previousBalance };
  }

  /** Before a list call is answered: the list grows when asked to. */
  beforeList(): void {
    const growth = this.growth;
    if (growth === undefined) return;
    const ids = Array.from({ length: growth.paymentsPerRead }, (_, i) => `${growth.idPrefix}${growth.made + i + 1}`);
    this.ledger.seed({
      paymentIds: ids,
      amount: '100.00',
      provider: findProvider('sbp-b2c')!,
      fields: defaultFields['sbp-b2c']!,
      status: 'COMPLETED',
    });
    growth.made += ids.length;
    growth.reads--;
    if (growth.reads === 0) this.growth = undefined;
  }
}

function parse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const cause: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) (cause[issue.path.map(String).join('.') || 'body'] ??= []).push(issue.message);
  const named = Object.entries(cause)
    .map(([field, messages]) => `${field}: ${messages.join('; ')}`)
    .join(', ');
  throw new SandboxApiError('validation.error', `invalid ${what}: ${named}`, cause);
}

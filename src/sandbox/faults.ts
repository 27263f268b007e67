import { z } from 'zod';

/** The partner operations, as named in fault rules and the inspection routes. */
export const operations = ['balance', 'balances', 'providers', 'provider', 'create', 'execute', 'list', 'get'] as const;
export type Operation = (typeof operations)[number];

/** An answer a hold-after fault keeps back (the effect has already happened), or a call a hold-before fault keeps (none has). */
export interface HeldAnswer {
  operation: Operation;
  paymentId?: string;
}

/**
 * - fail-before: 500 and nothing happens.
 * - fail-after: the operation takes effect, then 500 (the ambiguous case).
 * - fail-before-html / fail-after-html: the same as 502 / 504 with an HTML page, as a
 *   proxy in front of the API answers; the client gets no Error object to go by.
 * - drop-before / drop-after: the connection is cut without an answer.
 * - slow: takes effect, then answers only after `slowMs` (past a client's timeout).
 * - rate-limit: 429 with Retry-After, nothing happens.
 * - truncate-after: takes effect, then a 200 whose headers promise the whole JSON body
 *   but whose connection closes after half of it, so the client has a 2xx it cannot read.
 * - hold-after: takes effect, then the answer waits until released through
 *   POST /_sandbox/faults/release, so a test can kill the caller between the effect
 *   and the moment it could record it.
 * - hold-before: the call waits, with no effect, until released; then it is answered as
 *   fail-before (500, nothing happened), so a test can freeze or kill the caller while a
 *   call it sent has not acted yet.
 */
export const faultKinds = [
  'fail-before',
  'fail-after',
  'fail-before-html',
  'fail-after-html',
  'drop-before',
  'drop-after',
  'slow',
  'rate-limit',
  'truncate-after',
  'hold-after',
  'hold-before',
] as const;
export type FaultKind = (typeof faultKinds)[number];

const rate = z.number().min(0).max(1);
const milliseconds = z.number().int().min(0).max(600_000);

/**
 * Per-call probabilities of each fault that makes sense at random. hold-after and
 * hold-before have no rate: every held call needs a release, which only a test that queued it gives.
 */
export const FaultRatesSchema = z.object({
  latencyMs: milliseconds,
  jitterMs: milliseconds,
  failBeforeRate: rate,
  failAfterRate: rate,
  failBeforeHtmlRate: rate,
  failAfterHtmlRate: rate,
  dropBeforeRate: rate,
  /** drop-after; the name predates drop-before and is kept for SANDBOX_DROP_RATE. */
  dropRate: rate,
  slowRate: rate,
  rateLimitRate: rate,
  truncateRate: rate,
  slowMs: milliseconds,
  /** When set, rate-drawn faults hit only these operations; queued rules keep their own. */
  rateOperations: z.array(z.enum(operations)).optional(),
});
export type FaultRates = z.infer<typeof FaultRatesSchema>;

export const noFaults: FaultRates = {
  latencyMs: 0,
  jitterMs: 0,
  failBeforeRate: 0,
  failAfterRate: 0,
  failBeforeHtmlRate: 0,
  failAfterHtmlRate: 0,
  dropBeforeRate: 0,
  dropRate: 0,
  slowRate: 0,
  rateLimitRate: 0,
  truncateRate: 0,
  slowMs: 30_000,
};

const rateKinds = [
  ['fail-before', 'failBeforeRate'],
  ['fail-after', 'failAfterRate'],
  ['fail-before-html', 'failBeforeHtmlRate'],
  ['fail-after-html', 'failAfterHtmlRate'],
  ['drop-before', 'dropBeforeRate'],
  ['drop-after', 'dropRate'],
  ['slow', 'slowRate'],
  ['rate-limit', 'rateLimitRate'],
  ['truncate-after', 'truncateRate'],
] as const satisfies ReadonlyArray<readonly [FaultKind, keyof FaultRates]>;

/** One roll picks at most one fault, so the rates share the range 0..1. */
export function ratesFitOneRoll(rates: Partial<FaultRates>): boolean {
  return rateKinds.reduce((sum, [, key]) => sum + (rates[key] ?? 0), 0) <= 1 + 1e-9;
}
const rollMessage = 'the fault rates add up to more than 1';

/** PUT /_sandbox/faults/rates: the whole setting; what is left out means no fault. */
export const FaultRatesReplacement = FaultRatesSchema.partial().strict().refine(ratesFitOneRoll, rollMessage);
/** PATCH /_sandbox/faults/rates: only the fields given change; `rateOperations: null` lifts the limit. */
export const FaultRatesChange = FaultRatesSchema.partial()
  .extend({ rateOperations: z.array(z.enum(operations)).nullable().optional() })
  .strict();

export const FaultRule = z.object({
  operation: z.enum([...operations, 'any']).default('any'),
  kind: z.enum(faultKinds),
  /** How many matching calls it hits before it is used up. */
  times: z.number().int().min(1).default(1),
});
export type FaultRule = z.infer<typeof FaultRule>;

/** Faults chosen by rate (from settings) or queued one by one (tests, benchmarks). */
export class FaultInjector {
  private rules: FaultRule[] = [];

  constructor(
    public rates: FaultRates,
    private readonly random: () => number = Math.random,
  ) {}

  add(rule: FaultRule): void {
    this.rules.push({ ...rule });
  }

  clear(): void {
    this.rules = [];
  }

  pending(): FaultRule[] {
    return this.rules.map((rule) => ({ ...rule }));
  }

  /** Replaces every rate; what `next` leaves out means no fault. */
  replaceRates(next: Partial<FaultRates>): FaultRates {
    this.rates = withoutUndefined({ ...noFaults, ...next });
    return this.rates;
  }

  /** Changes the rates given; throws when the result could not be drawn from one roll. */
  changeRates(change: z.infer<typeof FaultRatesChange>): FaultRates {
    const { rateOperations, ...rest } = change;
    const next: FaultRates = { ...this.rates, ...withoutUndefined(rest) };
    if (rateOperations === null) delete next.rateOperations;
    else if (rateOperations !== undefined) next.rateOperations = rateOperations;
    if (!ratesFitOneRoll(next)) throw new RangeError(rollMessage);
    this.rates = next;
    return this.rates;
  }

  latency(): number {
    return this.rates.latencyMs + Math.round(this.random() * this.rates.jitterMs);
  }

  /** Picks the fault for one call, if any; queued rules win over rates. */
  draw(operation: Operation): FaultKind | undefined {
    const index = this.rules.findIndex((rule) => rule.operation === 'any' || rule.operation === operation);
    if (index >= 0) {
      const rule = this.rules[index]!;
      if (--rule.times === 0) this.rules.splice(index, 1);
      return rule.kind;
    }
    const limit = this.rates.rateOperations;
    if (limit !== undefined && !limit.includes(operation)) return undefined;
    const roll = this.random();
    let threshold = 0;
    for (const [kind, key] of rateKinds) {
      threshold += this.rates[key];
      if (roll < threshold) return kind;
    }
    return undefined;
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

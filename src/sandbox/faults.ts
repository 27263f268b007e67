import { z } from 'zod';

/** The partner operations, as named in fault rules and the inspection routes. */
export const operations = ['balance', 'balances', 'providers', 'provider', 'create', 'execute', 'list', 'get'] as const;
export type Operation = (typeof operations)[number];

/**
 * - fail-before: 500 and nothing happens.
 * - fail-after: the operation takes effect, then 500 (the ambiguous case).
 * - drop-before / drop-after: the connection is cut without an answer.
 * - slow: takes effect, then answers only after `slowMs` (past a client's timeout).
 * - rate-limit: 429 with Retry-After, nothing happens.
 */
export const faultKinds = ['fail-before', 'fail-after', 'drop-before', 'drop-after', 'slow', 'rate-limit'] as const;
export type FaultKind = (typeof faultKinds)[number];

export interface FaultRates {
  latencyMs: number;
  jitterMs: number;
  failBeforeRate: number;
  failAfterRate: number;
  dropRate: number;
  slowRate: number;
  slowMs: number;
}

export const noFaults: FaultRates = {
  latencyMs: 0,
  jitterMs: 0,
  failBeforeRate: 0,
  failAfterRate: 0,
  dropRate: 0,
  slowRate: 0,
  slowMs: 30_000,
};

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
    const roll = this.random();
    let threshold = 0;
    for (const [kind, rate] of [
      ['fail-before', this.rates.failBeforeRate],
      ['fail-after', this.rates.failAfterRate],
      ['drop-after', this.rates.dropRate],
      ['slow', this.rates.slowRate],
    ] as const) {
      threshold += rate;
      if (roll < threshold) return kind;
    }
    return undefined;
  }
}

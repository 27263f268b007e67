import type { Operation } from './faults.ts';

/**
 * Partner calls by what they do, as a fault suite asks "what did the partner receive":
 * read is a payment read (endpoint 8) or the provider catalogue (3, 4); balance is
 * endpoints 1 and 2; list is endpoint 7.
 */
export const callKinds = ['create', 'execute', 'read', 'balance', 'list'] as const;
export type CallKind = (typeof callKinds)[number];

const kindOf: Record<Operation, CallKind> = {
  balance: 'balance',
  balances: 'balance',
  providers: 'read',
  provider: 'read',
  get: 'read',
  list: 'list',
  create: 'create',
  execute: 'execute',
};

export function callKindOf(operation: Operation): CallKind {
  return kindOf[operation];
}

export interface CallTally {
  total: number;
  byKind: Record<CallKind, number>;
}

export interface CallWindow extends CallTally {
  complete: boolean;
}

/** How many arrival times `between` can look back over. */
const KEPT_ARRIVALS = 100_000;

export interface CallCountsView extends CallTally {
  /** When counting started (the sandbox's start or the last reset). */
  since: string;
  /** Of those, the calls that arrived while an outage was in force (whatever its kinds). */
  duringOutage: CallTally;
  /** Calls arrived and not yet answered, now; and the most at once since counting started. */
  inFlight: number;
  peakInFlight: number;
}

/**
 * Calls that reached a partner route (authenticated and routed), counted on arrival,
 * before any outage or fault answers them. A refused connection never arrives, so it is
 * never counted: during a refusal the counts stand still.
 */
export class CallCounts {
  private all = emptyTally();
  private duringOutage = emptyTally();
  private since: number;
  /** Arrival times of the latest calls, a ring: enough for a fault scenario, bounded for a long bench. */
  private readonly arrivedAt = new Float64Array(KEPT_ARRIVALS);
  private readonly arrivedKind = new Uint8Array(KEPT_ARRIVALS);
  private arrived = 0;
  private inFlight = 0;
  private peakInFlight = 0;

  constructor(private readonly now: () => number) {
    this.since = now();
  }

  note(operation: Operation, duringOutage: boolean): void {
    const kind = callKindOf(operation);
    add(this.all, kind);
    if (duringOutage) add(this.duringOutage, kind);
    const slot = this.arrived++ % KEPT_ARRIVALS;
    this.arrivedAt[slot] = this.now();
    this.arrivedKind[slot] = callKinds.indexOf(kind);
  }

  /** A partner call is being served (counted whether or not it is answered in the end: a dropped one ends too). */
  began(): void {
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
  }

  ended(): void {
    this.inFlight--;
  }

  /**
   * Calls that arrived from `fromMs` to `toMs` (epoch ms, both included): what a client sent
   * while its breaker was open, say. `complete` is false when older calls than the window's
   * start were already forgotten, so the tally may be short.
   */
  between(fromMs: number, toMs: number): CallWindow {
    const tally = emptyTally();
    const kept = Math.min(this.arrived, KEPT_ARRIVALS);
    let oldest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < kept; i++) {
      const at = this.arrivedAt[i]!;
      oldest = Math.min(oldest, at);
      if (at >= fromMs && at <= toMs) add(tally, callKinds[this.arrivedKind[i]!]!);
    }
    return { ...tally, complete: this.arrived <= KEPT_ARRIVALS || oldest <= fromMs };
  }

  /** List calls alone: GET /_sandbox/list-calls, older than the kinds. */
  get listCalls(): number {
    return this.all.byKind.list;
  }

  view(format: (epochMs: number) => string): CallCountsView {
    return {
      since: format(this.since),
      ...copy(this.all),
      duringOutage: copy(this.duringOutage),
      inFlight: this.inFlight,
      peakInFlight: this.peakInFlight,
    };
  }

  reset(): void {
    this.all = emptyTally();
    this.duringOutage = emptyTally();
    this.arrived = 0;
    this.peakInFlight = this.inFlight;
    this.since = this.now();
  }
}

function emptyTally(): CallTally {
  return { total: 0, byKind: Object.fromEntries(callKinds.map((kind) => [kind, 0])) as Record<CallKind, number> };
}

function add(tally: CallTally, kind: CallKind): void {
  tally.total++;
  tally.byKind[kind]++;
}

function copy(tally: CallTally): CallTally {
  return { total: tally.total, byKind: { ...tally.byKind } };
}

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

export interface CallCountsView extends CallTally {
  /** When counting started (the sandbox's start or the last reset). */
  since: string;
  /** Of those, the calls that arrived while an outage was in force (whatever its kinds). */
  duringOutage: CallTally;
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

  constructor(private readonly now: () => number) {
    this.since = now();
  }

  note(operation: Operation, duringOutage: boolean): void {
    const kind = callKindOf(operation);
    add(this.all, kind);
    if (duringOutage) add(this.duringOutage, kind);
  }

  /** List calls alone: GET /_sandbox/list-calls, older than the kinds. */
  get listCalls(): number {
    return this.all.byKind.list;
  }

  view(format: (epochMs: number) => string): CallCountsView {
    return { since: format(this.since), ...copy(this.all), duringOutage: copy(this.duringOutage) };
  }

  reset(): void {
    this.all = emptyTally();
    this.duringOutage = emptyTally();
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

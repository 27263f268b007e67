import { join, relative } from 'node:path';
import ts from 'typescript';
import * as enums from '../../src/db/generated/enums.ts';
import { deliveryTransitions } from '../../src/outbound/delivery-states.ts';
import { subscriptionTransitions } from '../../src/outbound/subscription-states.ts';

/**
 * The scan for state names typed as string literals, shared by test/sql-state-literals.test.ts
 * (src) and test/web-state-literals.test.ts (the page): each keeps its own allowed list.
 */

const root = join(import.meta.dirname, '../..');

/** The states of a table's moves (machines whose state is columns, not a Prisma enum). */
export const statesOf = (transitions: ReadonlyArray<{ from: string | null; to: string }>): string[] => [
  ...new Set(transitions.flatMap((t) => [t.from, t.to]).filter((state): state is string => state !== null)),
];
export const subscriptionStates = statesOf(subscriptionTransitions);
export const deliveryStates = statesOf(deliveryTransitions);

export interface StateMachine {
  states: readonly string[];
  /** The files (from src/) that hold its table: the only ones where its states are typed. */
  tables: readonly string[];
}

/** The state machines, each with its table files. */
export const stateMachines = {
  batch: { states: Object.values(enums.BatchStatus), tables: ['batch/states/batch-states.ts'] },
  /** The review's table (verdicts and marks) leads to row states. */
  row: {
    states: Object.values(enums.BatchItemStatus),
    tables: ['batch/states/row-states.ts', 'batch/states/row-outcomes.ts', 'batch/states/review-states.ts'],
  },
  payment: { states: Object.values(enums.TrackedStatus), tables: ['payments/status.ts'] },
  breaker: { states: Object.values(enums.BreakerState), tables: ['partner/breaker-states.ts'] },
  'reconciliation run': { states: Object.values(enums.ReconciliationStatus), tables: ['reconciliation/run-states.ts'] },
  /** Kept in the `enabled` column; why it is off in `disabledReason`, in the table file's words. */
  subscription: { states: subscriptionStates, tables: ['outbound/subscription-states.ts'] },
  /** Kept in the lease columns. */
  delivery: { states: deliveryStates, tables: ['outbound/delivery-states.ts'] },
} satisfies Record<string, StateMachine>;

/**
 * A file (or folder, ending in /) allowed to type state names, with how many of each, and
 * why. A literal added to one of them fails as it would anywhere; one removed asks for its
 * entry to shrink.
 */
export interface AllowedStateNames {
  path: string;
  names: Record<string, number> | 'any';
  reason: string;
}

export interface StateLiteralScan {
  /** The folder whose files are scanned: paths (tables, allowed entries) are read from it. */
  base: string;
  machines: Record<string, StateMachine>;
  allowed: readonly AllowedStateNames[];
  /** Whether a finding names the machines that have the state: ` (batch, row)`. */
  nameMachines?: boolean;
}

export interface TypedName {
  name: string;
  where: string;
}

/** `file:line: 'NAME'` (and its machines, if asked) for each string literal equal to a state name outside the tables that have it. */
export function typedNames(scan: StateLiteralScan, file: string, text: string): TypedName[] {
  const path = relative(scan.base, file);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const hits: TypedName[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const owners = Object.entries(scan.machines).filter(([, machine]) => machine.states.includes(node.text));
      if (owners.length > 0 && !owners.some(([, machine]) => machine.tables.includes(path))) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        const machines = scan.nameMachines === true ? ` (${owners.map(([name]) => name).join(', ')})` : '';
        hits.push({ name: node.text, where: `${relative(root, file)}:${line}: '${node.text}'${machines}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return hits;
}

/** What the scan finds that the allowed list does not cover, and entries that allow more than is there. */
export function unlisted(scan: StateLiteralScan, files: ReadonlyArray<{ file: string; text: string }>): string[] {
  const problems: string[] = [];
  const counted = new Map<string, Map<string, number>>();
  for (const { file, text } of files) {
    const path = relative(scan.base, file);
    const entry = scan.allowed.find((one) => (one.path.endsWith('/') ? path.startsWith(one.path) : path === one.path));
    const hits = typedNames(scan, file, text);
    if (entry === undefined) {
      problems.push(...hits.map((hit) => hit.where));
      continue;
    }
    if (entry.names === 'any') continue;
    const counts = counted.get(entry.path) ?? new Map<string, number>();
    counted.set(entry.path, counts);
    for (const hit of hits) {
      counts.set(hit.name, (counts.get(hit.name) ?? 0) + 1);
      if (counts.get(hit.name)! > (entry.names[hit.name] ?? 0)) problems.push(`${hit.where}: more than its entry allows (${entry.reason})`);
    }
  }
  for (const entry of scan.allowed) {
    if (entry.names === 'any') continue;
    for (const [name, count] of Object.entries(entry.names)) {
      const found = counted.get(entry.path)?.get(name) ?? 0;
      if (found < count)
        problems.push(`${relative(root, join(scan.base, entry.path))}: allows ${count} '${name}', has ${found}: shrink its entry`);
    }
  }
  return problems;
}

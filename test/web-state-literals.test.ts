import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as enums from '../src/db/generated/enums.ts';
import { deliveryTransitions } from '../src/outbound/delivery-states.ts';
import { subscriptionTransitions } from '../src/outbound/subscription-states.ts';
import { sourceFilesUnder } from './support/source-files.ts';

/**
 * State names in the page (web/src), as sql-state-literals.test.ts checks them in src: the
 * page asks the gateway what a state means (Batch.actions, from the lifecycle table of
 * src/batch/states/batch-states.ts; EventSubscription.offReason) rather than testing
 * states of its own. The page has no table file, so every string literal equal to a state of
 * one of the machines counts, except the generated client (gql/) and what the list below
 * allows, file by file, with how many of each and why. A literal added fails as it would
 * anywhere; one removed asks for its entry to shrink.
 */
const statesOf = (transitions: ReadonlyArray<{ from: string | null; to: string }>): string[] =>
  transitions.flatMap((t) => [t.from, t.to]).filter((state): state is string => state !== null);
const states: ReadonlySet<string> = new Set([
  ...Object.values(enums.BatchStatus),
  ...Object.values(enums.BatchItemStatus),
  ...Object.values(enums.TrackedStatus),
  ...Object.values(enums.BreakerState),
  ...Object.values(enums.ReconciliationStatus),
  ...statesOf(subscriptionTransitions),
  ...statesOf(deliveryTransitions),
]);
const root = join(import.meta.dirname, '..');
const web = join(root, 'web/src');

/**
 * What the page still types, and why. Left to do (issue 39): a gateway field for each of
 * these questions (finished, discarded, the progress bands), so that the list shrinks.
 */
const allowed: ReadonlyArray<{ path: string; names: Record<string, number>; reason: string }> = [
  {
    path: 'queries.ts',
    names: {
      VALIDATING: 1,
      VALIDATED: 1,
      REJECTED: 2,
      SCHEDULED: 1,
      RUNNING: 2,
      PAUSED: 1,
      COMPLETED: 5,
      COMPLETED_WITH_FAILURES: 2,
      CANCELLED: 4,
      PENDING: 1,
      CREATING: 1,
      READY: 1,
      EXECUTING: 1,
      IN_PROGRESS: 1,
      FAILED: 3,
      EXPIRED: 2,
      NEEDS_REVIEW: 2,
      INVALID: 1,
    },
    reason:
      "the status filters' choices in the page's order (GraphQL enum values: codegen emits them as types only), and the finished batch and row states the live view stops on",
  },
  {
    path: 'progress.ts',
    names: {
      PENDING: 1,
      CREATING: 1,
      READY: 1,
      EXECUTING: 1,
      IN_PROGRESS: 1,
      COMPLETED: 1,
      FAILED: 1,
      EXPIRED: 1,
      NEEDS_REVIEW: 1,
      CANCELLED: 1,
      INVALID: 1,
      DUPLICATE: 1,
    },
    reason: "the progress bar's bands: which row states count as waiting, in flight, done, failed or not paid at all",
  },
  {
    path: 'batch-page.tsx',
    names: { REJECTED: 2, CANCELLED: 1, VALIDATING: 1, SCHEDULED: 1 },
    reason: 'what the page shows for a state: the validation report, a discarded upload, the import under way, the scheduled line',
  },
  {
    path: 'reconciliation-page.tsx',
    names: { COMPLETED: 3 },
    reason: 'the list of runs: a completed run shows its figures',
  },
  {
    path: 'reconciliation-run-page.tsx',
    names: { RUNNING: 2, COMPLETED: 1, FAILED: 1 },
    reason: "a run's figures once completed, its progress while running, its error once failed",
  },
  { path: 'batch-rows.tsx', names: { PENDING: 1, INVALID: 1, DUPLICATE: 1 }, reason: "a row's words: awaiting approval, or never paid" },
  { path: 'row-note.ts', names: { IN_PROGRESS: 1, COMPLETED: 1, FAILED: 1 }, reason: 'row states whose payment was executed upstream' },
  { path: 'downloads.tsx', names: { REJECTED: 1 }, reason: 'a refused upload offers its problems file' },
  { path: 'lazy-pages.tsx', names: { NEEDS_REVIEW: 1 }, reason: 'the review panel is loaded only when a row waits for review' },
  { path: 'review-panel.tsx', names: { NEEDS_REVIEW: 1 }, reason: 'how many rows wait for review' },
  { path: 'schedule-parts.tsx', names: { SCHEDULED: 1 }, reason: "a scheduled batch's pay time" },
];

function typedNames(file: string, text: string): Array<{ name: string; where: string }> {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const hits: Array<{ name: string; where: string }> = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && states.has(node.text)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      hits.push({ name: node.text, where: `${relative(root, file)}:${line}: '${node.text}'` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return hits;
}

function unlisted(files: Array<{ file: string; text: string }>): string[] {
  const problems: string[] = [];
  const counted = new Map<string, Map<string, number>>();
  for (const { file, text } of files) {
    const path = relative(web, file);
    const entry = allowed.find((one) => one.path === path);
    const hits = typedNames(file, text);
    if (entry === undefined) {
      problems.push(...hits.map((hit) => hit.where));
      continue;
    }
    const counts = counted.get(path) ?? new Map<string, number>();
    counted.set(path, counts);
    for (const hit of hits) {
      counts.set(hit.name, (counts.get(hit.name) ?? 0) + 1);
      if (counts.get(hit.name)! > (entry.names[hit.name] ?? 0)) problems.push(`${hit.where}: more than its entry allows (${entry.reason})`);
    }
  }
  for (const entry of allowed)
    for (const [name, count] of Object.entries(entry.names)) {
      const found = counted.get(entry.path)?.get(name) ?? 0;
      if (found < count) problems.push(`web/src/${entry.path}: allows ${count} '${name}', has ${found}: shrink its entry`);
    }
  return problems;
}

describe('state names in the page', () => {
  const files = () =>
    sourceFilesUnder(web, { names: /\.tsx?$/, skip: ['gql'] }).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it('are typed only where the allowed list says why', () => {
    expect(files().length).toBeGreaterThan(20);
    expect(unlisted(files())).toEqual([]);
  });

  it("fail when typed anywhere else: the batch's actions come from the gateway", () => {
    const actions = join(web, 'batch-actions.tsx');
    const withLiteral = files().map((one) =>
      one.file === actions ? { ...one, text: `${one.text}\nexport const runs = (s: string) => s === 'RUNNING';\n` } : one,
    );
    expect(unlisted(withLiteral)).toEqual([expect.stringMatching(/^web\/src\/batch-actions\.tsx:\d+: 'RUNNING'$/)]);
  });
});

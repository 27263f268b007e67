import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFilesUnder } from './support/source-files.ts';
import { stateMachines, unlisted, type AllowedStateNames, type StateLiteralScan } from './support/state-literals.ts';

/**
 * State names in the page (web/src), as sql-state-literals.test.ts checks them in src, with
 * the same scan (test/support/state-literals.ts): the page asks the gateway what a state
 * means (Batch.actions, from the lifecycle table of src/batch/states/batch-states.ts;
 * EventSubscription.offReason) rather than testing states of its own. The page has no table
 * file, so every string literal equal to a state of one of the machines counts, except the
 * generated client (gql/) and what the list below allows, file by file, with how many of
 * each and why. A literal added fails as it would anywhere; one removed asks for its entry
 * to shrink.
 */
const states = [...new Set(Object.values(stateMachines).flatMap((machine): readonly string[] => machine.states))];
const root = join(import.meta.dirname, '..');
const web = join(root, 'web/src');

/**
 * What the page still types, and why. Left to do (issue 39): a gateway field for each of
 * these questions (finished, discarded, the progress bands), so that the list shrinks.
 */
const allowed: readonly AllowedStateNames[] = [
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

/** web/src against every state of every machine (no table file here) and the list above. */
const scan: StateLiteralScan = { base: web, machines: { page: { states, tables: [] } }, allowed };

describe('state names in the page', () => {
  const files = () =>
    sourceFilesUnder(web, { names: /\.tsx?$/, skip: ['gql'] }).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it('are typed only where the allowed list says why', () => {
    expect(files().length).toBeGreaterThan(20);
    expect(unlisted(scan, files())).toEqual([]);
  });

  it("fail when typed anywhere else: the batch's actions come from the gateway", () => {
    const actions = join(web, 'batch-actions.tsx');
    const withLiteral = files().map((one) =>
      one.file === actions ? { ...one, text: `${one.text}\nexport const runs = (s: string) => s === 'RUNNING';\n` } : one,
    );
    expect(unlisted(scan, withLiteral)).toEqual([expect.stringMatching(/^web\/src\/batch-actions\.tsx:\d+: 'RUNNING'$/)]);
  });
});

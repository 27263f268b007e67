import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modelOutcomes, MODEL_MAX_RETRIES, type ModelOutcome } from '../../scripts/model/tables.ts';
import {
  activeItemStatuses,
  cancelledAtOnce,
  changeAfter,
  createdNotExecuted,
  holdForReview,
  neverCreated,
  notSentItemStatuses,
  pausedBeforeExecute,
  retryableItemStatuses,
  rowTransitions,
  startExecuting,
  underReviewItemStatuses,
  unpayableItemStatuses,
  waitingStatus,
  type ActiveItemStatus,
  type RetryPolicy,
  type Stage,
} from '../../src/batch/states/row-states.ts';
import { BatchItemStatus } from '../../src/db/generated/enums.ts';

/**
 * The row table of batch/states/row-states.ts against the code that moves rows: changeAfter
 * is the outcome logic, and every result it can give is a row of the table (with the state
 * the worker wrote before the call as `from`).
 */
const policy: RetryPolicy = { maxRetries: MODEL_MAX_RETRIES, delay: () => 1, inProgressDelay: () => 1 };
/** The state a row is in when the stage's outcome is written: the write before its call. */
const writtenBefore: Record<Stage, BatchItemStatus> = { create: 'CREATING', execute: 'EXECUTING', read: 'IN_PROGRESS' };
/** The states a row can be claimed in for the stage (pay/pay-row.ts): an unreachable partner leaves it there. */
const claimedIn: Record<Stage, BatchItemStatus[]> = {
  create: ['PENDING', 'CREATING'],
  execute: ['PENDING', 'CREATING', 'READY', 'EXECUTING'],
  read: ['IN_PROGRESS'],
};
/** `not-paid` with proof `ready` comes only from an execute's read-back (payments/attempt.ts execute). */
const outcomesOf = (stage: Stage): ModelOutcome[] =>
  (Object.keys(modelOutcomes) as ModelOutcome[]).filter((name) => stage === 'execute' || !['READY_AGAIN', 'STILL_READY'].includes(name));
const has = (from: BatchItemStatus | null, to: BatchItemStatus, by: string) =>
  rowTransitions.some((t) => t.from === from && t.to === to && t.by === by);

describe('the row table', () => {
  it('has every result changeAfter can give, and no attempt row it cannot', () => {
    const missing: string[] = [];
    const given = new Set<string>();
    for (const stage of ['create', 'execute', 'read'] as const) {
      for (const name of outcomesOf(stage)) {
        for (let retries = 0; retries <= MODEL_MAX_RETRIES + 1; retries++) {
          for (const before of claimedIn[stage]) {
            const { to } = changeAfter(stage, modelOutcomes[name](), retries, policy, before);
            const from = writtenBefore[stage];
            given.add(`${from} -> ${to}`);
            if (!has(from, to, 'attempt')) missing.push(`${stage} ${name} retries ${retries} claimed ${before}: ${from} -> ${to}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
    const unused = rowTransitions.filter((t) => t.by === 'attempt' && !given.has(`${t.from} -> ${t.to}`));
    expect(unused).toEqual([]);
  });

  it('has the moves of holdForReview and startExecuting', () => {
    const held = holdForReview('batch.previous-attempt', 'paid', 0).to;
    expect(has('PENDING', held, 'previous-attempt')).toBe(true);
    expect(has('CREATING', held, 'unreadable')).toBe(true);
    expect(has('READY', startExecuting(null, 0).to, 'start-execute')).toBe(true);
  });

  it('has the moves of a row read back in a batch that no longer pays (decision 0027), each ended by the cancel', () => {
    const ready = createdNotExecuted({} as never, 0).to;
    expect(has('EXECUTING', ready, 'attempt')).toBe(true);
    expect(has('EXECUTING', 'CANCELLED', 'cancel')).toBe(true);
    const unsent = neverCreated(0).to;
    expect(has('CREATING', unsent, 'attempt')).toBe(true);
    expect(rowTransitions.find((t) => t.from === 'CREATING' && t.by === 'cancel' && t.override?.writes === unsent)?.code).toBe(
      'batch.cancelled',
    );
  });

  it('sends nothing more for a row whose execute was not sent: READY, the payment exists upstream', () => {
    for (const before of claimedIn.execute) {
      expect(changeAfter('execute', modelOutcomes.UNREACHABLE(), 0, policy, before).to, `claimed ${before}`).toBe('READY');
    }
  });

  it('gives the lists the code had', () => {
    expect(activeItemStatuses).toEqual(['PENDING', 'CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS'] satisfies ActiveItemStatus[]);
    expect(retryableItemStatuses).toEqual(['FAILED', 'EXPIRED']);
    expect(unpayableItemStatuses).toEqual(['COMPLETED', 'CANCELLED', 'INVALID']);
    expect(underReviewItemStatuses).toEqual(['NEEDS_REVIEW']);
    expect(notSentItemStatuses).toEqual(['INVALID', 'DUPLICATE']);
    expect([waitingStatus, pausedBeforeExecute]).toEqual(['PENDING', 'READY']);
    expect(cancelledAtOnce).toEqual({ notSent: 'PENDING', afterCreate: 'READY' });
  });

  it('names each state somewhere', () => {
    const named = new Set(rowTransitions.flatMap((t) => [t.from, t.to]));
    expect(Object.values(BatchItemStatus).filter((state) => !named.has(state))).toEqual([]);
  });

  it('is shown in docs/internals/reliability/row-states.md as the module has it', () => {
    const doc = readFileSync(new URL('../../docs/internals/reliability/row-states.md', import.meta.url), 'utf8');
    const rows = rowTransitions.map((t) => `| ${t.from ?? '(new)'} | ${t.to} | ${t.by} | ${t.when} |`);
    expect(rows.filter((row) => !doc.includes(row))).toEqual([]);
  });
});

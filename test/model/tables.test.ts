import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeTables, compareTables, renderTables } from '../../scripts/model/tables.ts';
import type { BatchItemStatus } from '../../src/db/generated/enums.ts';

const committed = readFileSync(new URL('../../model/generated/tables.pml', import.meta.url), 'utf8');

describe("the model's transition tables", () => {
  it("are the code's: regenerated from the state tables, every transition agrees", () => {
    expect(compareTables(committed, renderTables())).toEqual([]);
  });

  it('name a batch transition the code has and the model lacks', () => {
    const code = renderTables({
      ...codeTables,
      batchTransitions: [...codeTables.batchTransitions, { from: 'PAUSED', to: 'VALIDATED', by: 'resume', when: 'a mistake' }],
    });
    expect(compareTables(committed, code)).toEqual([
      'transition "batch: PAUSED -> VALIDATED by resume => allowed" is in the code and not in the model',
    ]);
  });

  it('name a breaker move the code has and the model lacks', () => {
    const code = renderTables({
      ...codeTables,
      breakerTransitions: [...codeTables.breakerTransitions, { from: 'OPEN', to: 'CLOSED', on: 'trouble', when: 'a mistake', effect: '' }],
    });
    expect(compareTables(committed, code)).toEqual([
      'transition "breaker: OPEN -> CLOSED on trouble => allowed" is in the code and not in the model',
    ]);
  });

  it('name a payment status move the code dropped', () => {
    const code = renderTables({
      ...codeTables,
      allowedMoves: codeTables.allowedMoves.filter(([from, to]) => !(from === 'READY' && to === 'UNKNOWN')),
    });
    expect(compareTables(committed, code)).toEqual([
      'transition "payment: READY -> UNKNOWN => allowed" is in the model and not in the code',
    ]);
  });

  it('name a row transition that leads elsewhere in the code', () => {
    const changeAfter: typeof codeTables.changeAfter = (stage, outcome, retries, policy, before) => {
      const change = codeTables.changeAfter(stage, outcome, retries, policy, before);
      return stage === 'execute' && outcome.kind === 'unknown' && retries === 0 && outcome.unread !== true
        ? { ...change, to: 'FAILED' as BatchItemStatus }
        : change;
    };
    expect(compareTables(committed, renderTables({ ...codeTables, changeAfter }))).toEqual([
      'transition "item execute UNKNOWN retries 0" differs: the code says FAILED, retries 1, FACT_UNKNOWN, the model says EXECUTING, retries 1, FACT_UNKNOWN',
    ]);
  });
});

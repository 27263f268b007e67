import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ReconciliationStatus } from '../../src/db/generated/enums.ts';
import { runStates, runTransitions } from '../../src/reconciliation/run-states.ts';

describe('the reconciliation run table (reconciliation/run-states.ts)', () => {
  it('names every state, and the states the code uses are its', () => {
    const named = new Set(runTransitions.flatMap((t) => [t.from, t.to]));
    expect(Object.values(ReconciliationStatus).filter((state) => !named.has(state))).toEqual([]);
    expect(runStates).toEqual({ running: 'RUNNING', completed: 'COMPLETED', failed: 'FAILED' });
  });

  it('is shown in docs/internals/reliability/workers.md as the module has it', () => {
    const doc = readFileSync(new URL('../../docs/internals/reliability/workers.md', import.meta.url), 'utf8');
    const rows = runTransitions.map((t) => `| ${t.from ?? '(new)'} | ${t.to} | ${t.by} | ${t.when} |`);
    expect(rows.filter((row) => !doc.includes(row))).toEqual([]);
  });
});

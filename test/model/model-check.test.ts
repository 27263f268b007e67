import { describe, expect, it } from 'vitest';
import { checks } from '../../scripts/model/checks.ts';
import { runCheck, spinAvailable } from '../../scripts/model/spin.ts';

/**
 * The pay protocol's model (model/pay-protocol.pml, docs/internals/reliability/model.md) checked by spin:
 * pan is built and run in a temporary directory per check. Checks run one after another
 * within a file; the mutants and the liveness check are in mutants.test.ts, which vitest runs
 * beside this one on the other core.
 */
const minutes = 60_000;

describe('the pay protocol model', () => {
  it('has spin to check it (CI installs it: .ci/run)', () => {
    expect(spinAvailable(), 'spin is not installed: apt-get install spin (the model check needs it)').not.toBeNull();
  });

  for (const check of checks) {
    it(
      `every property holds: ${check.name}`,
      () => {
        const result = runCheck(check);
        expect(result.errors, `${result.property ?? result.violation}:\n${result.trail.join('\n')}`).toBe(0);
        expect(result.complete).toBe(true);
      },
      5 * minutes,
    );
  }
});

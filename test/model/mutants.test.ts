import { describe, expect, it } from 'vitest';
import { livenessCheck, mutants } from '../../scripts/model/checks.ts';
import { runCheck } from '../../scripts/model/spin.ts';

/** The model must be able to fail: each mutant of it is caught by its property (docs/internals/reliability/model.md). */
const minutes = 60_000;

describe("the pay protocol model's mutants and liveness", () => {
  it(
    'property 3 (settles) holds under weak fairness',
    () => {
      const result = runCheck(livenessCheck);
      expect(result.errors, result.trail.join('\n')).toBe(0);
    },
    5 * minutes,
  );

  for (const mutant of mutants) {
    it(
      `catches the ${mutant.name.replace('mutant: ', '')} mutant by ${mutant.expect}`,
      () => {
        const result = runCheck(mutant);
        expect(result.errors).toBeGreaterThan(0);
        expect(result.property ?? '').toMatch(new RegExp(`^${mutant.expect} `));
        expect(result.trail.length).toBeGreaterThan(0);
      },
      5 * minutes,
    );
  }
});

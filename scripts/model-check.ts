import { mkdirSync, writeFileSync } from 'node:fs';
import { checks, livenessCheck, mutants } from './model/checks.ts';
import { runCheck, type Check, type CheckResult } from './model/spin.ts';

/**
 * npm run model:check: the pay protocol's model (model/pay-protocol.pml) checked by spin: the
 * code as it is, scope by scope, property 3's liveness, then each mutant, which must be
 * caught by its property. Prints the figures; --trails also
 * prints each counterexample as a step list, --write-trails writes them to docs/model-trails/.
 * Exits 1 when a result is not the expected one.
 */
const showTrails = process.argv.includes('--trails');
const writeTrails = process.argv.includes('--write-trails');
const trailsDir = new URL('../docs/model-trails/', import.meta.url);
let unexpected = 0;

function report(result: CheckResult, expected: string): void {
  const found = result.errors > 0 ? `VIOLATED ${result.property ?? result.violation ?? '?'}` : 'holds';
  console.log(
    `${result.name.padEnd(52)} ${found.padEnd(26)} ${String(result.statesStored).padStart(10)} states  ${String(result.transitions).padStart(10)} transitions  depth ${String(result.depth).padStart(4)}  ${result.memoryMb.toFixed(0).padStart(5)} MB  ${result.seconds.toFixed(1).padStart(6)} s${result.complete ? '' : '  (search not completed)'}`,
  );
  if (found !== expected && !(expected.startsWith('VIOLATED') && result.errors > 0 && result.property?.startsWith(expected.slice(9)))) {
    unexpected++;
    console.log(`  expected: ${expected}`);
  }
  if (showTrails && result.trail.length > 0)
    for (const [i, step] of result.trail.entries()) console.log(`    ${String(i + 1).padStart(3)}. ${step}`);
  if (writeTrails && result.trail.length > 0) {
    mkdirSync(trailsDir, { recursive: true });
    const file = `${result.name
      .replace(/^mutant: /, '')
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/-+$/, '')
      .toLowerCase()}.md`;
    const steps = result.trail.map((step, i) => `${i + 1}. ${step}`).join('\n');
    writeFileSync(
      new URL(file, trailsDir),
      `# Counterexample: ${result.name}\n\nFound by spin on model/pay-protocol.pml (\`npm run model:check -- --write-trails\`); violates ${result.property ?? result.violation}. Rows and paymentIds count from 1; "w1", "w2" are workers.\n\n${steps}\n`,
    );
  }
}

const run = (check: Check, expected: string) => report(runCheck(check), expected);
for (const check of checks) run(check, 'holds');
run(livenessCheck, 'holds');
for (const mutant of mutants) run(mutant, `VIOLATED ${mutant.expect}`);
process.exit(unexpected === 0 ? 0 : 1);

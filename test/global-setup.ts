import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { makeDatabaseTemplates } from './support/database-template.ts';

/**
 * Tests that start real processes (the CLI, workers) run the built dist/, as users do:
 * build it from the current source first, so no test ever runs stale code.
 */
export default async function setup(): Promise<void> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  // The page tests build dist/web once per run (test/support/browser.ts buildWebPage): this
  // run's id, inherited by the workers, and no lock left by a run that was killed.
  process.env.PAYOUT_TEST_RUN = randomUUID();
  rmSync(new URL('../dist/.web-build-lock', import.meta.url), { recursive: true, force: true });
  await makeDatabaseTemplates();
}

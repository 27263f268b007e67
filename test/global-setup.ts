import { execFileSync } from 'node:child_process';

/**
 * Tests that start real processes (the CLI, workers) run the built dist/, as users do:
 * build it from the current source first, so no test ever runs stale code.
 */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}

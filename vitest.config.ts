import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 has no exports map: Node loads its CJS build for the libraries, Vite
    // would give our code the ESM one, and two graphql instances break instanceof checks.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Each file gets its own process: its own database, ports and sandbox.
    pool: 'forks',
    // Vitest's default leaves a core free, which is one worker on a 2-core machine (CI): most
    // files wait on sockets, processes and databases, so two side by side take the suite
    // from ~37 to ~30 minutes even at load 5-14 (docs/benchmarks.md, "The test suite").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Bounds for a hung run only; no test depends on time. Generous because the suite must
    // pass on a shared 2-core machine at a load of 10 or more (a first start migrates the
    // embedded database through the wasm schema engine: seconds when idle, a minute loaded).
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});

import { createRequire } from 'node:module';
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
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

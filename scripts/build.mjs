// Compiles the entry points to dist/ once (at install, and before the tests), so no
// TypeScript is compiled at run time: start-up is module loading only. Dependencies stay
// external and load from node_modules as they are.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const started = performance.now();
// Chunk names carry a hash: without this, every build would leave the previous ones behind.
rmSync('dist/chunks', { recursive: true, force: true });
await build({
  entryPoints: {
    main: 'src/main.ts',
    worker: 'src/worker-main.ts',
    payout: 'src/cli/main.ts',
    sandbox: 'src/sandbox/main.ts',
    migrate: 'src/migrate-main.ts',
  },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node22',
  sourcemap: true,
  logLevel: 'warning',
  chunkNames: 'chunks/[name]-[hash]',
});
console.log(`built dist/ in ${Math.round(performance.now() - started)} ms`);

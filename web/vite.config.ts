import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The clerk's page, built at install (`npm run build:web`) into dist/web/ and served by
 * the gateway at `/`. Vite 8 transforms JSX with oxc: the automatic runtime imported from
 * preact, so no babel preset is needed.
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web/', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The gateway's Content-Security-Policy allows no inline script: the polyfill would be one.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});

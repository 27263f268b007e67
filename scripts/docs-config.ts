import { readFileSync, writeFileSync } from 'node:fs';
import { renderConfigurationReference } from './docs/configuration-reference.ts';

/**
 * Writes docs/operations/configuration.md from the configuration schemas; with --check,
 * only says whether the committed file differs (exit 1), as test/docs/configuration-reference.test.ts does.
 */
const target = new URL('../docs/operations/configuration.md', import.meta.url);
const fresh = renderConfigurationReference();
if (process.argv.includes('--check')) {
  const same = readFileSync(target, 'utf8') === fresh;
  if (!same) console.error(`${target.pathname} differs from the schemas: run npm run docs:config`);
  process.exit(same ? 0 : 1);
}
writeFileSync(target, fresh);
console.log(`wrote ${target.pathname}`);

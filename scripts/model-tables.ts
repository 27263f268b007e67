import { readFileSync, writeFileSync } from 'node:fs';
import { compareTables, renderTables } from './model/tables.ts';

/**
 * Writes model/generated/tables.pml from the code's state tables; with --check, only says
 * which transitions differ (exit 1), as test/model/tables.test.ts does.
 */
const target = new URL('../model/generated/tables.pml', import.meta.url);
const fresh = renderTables();
if (process.argv.includes('--check')) {
  const differences = compareTables(readFileSync(target, 'utf8'), fresh);
  for (const difference of differences) console.error(difference);
  process.exit(differences.length === 0 ? 0 : 1);
}
writeFileSync(target, fresh);
console.log(`wrote ${target.pathname}`);

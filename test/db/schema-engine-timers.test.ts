import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { expect, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrations.ts';

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

/**
 * Finding: the first `payout` command in a new DATA_DIR printed its answer in 3 s and
 * exited 10 s later. The Prisma schema engine (wasm) arms a 10 s timer while it migrates
 * and never clears it, so the process stayed alive until it fired; every first start of the
 * CLI, and every CLI test in a fresh data directory, waited for it.
 */
it('migrating leaves no timer behind: a command that migrated ends as soon as it is done', async () => {
  const database = await PGlite.create();
  try {
    const before = timers();
    expect((await applyMigrations(new PrismaPGlite(database))).length).toBeGreaterThan(0);
    expect(timers()).toBe(before);
  } finally {
    await database.close();
  }
});

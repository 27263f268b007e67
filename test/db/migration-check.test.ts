import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { readMigrations } from '../../src/db/migrations.ts';
import { createLogger } from '../../src/log/logger.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';

/**
 * Start-up checks `_prisma_migrations` with one query and loads the wasm schema engine only
 * when something is pending; what the engine would say must still be said.
 */
describe.each(testDatabaseKinds())('migration check on $name', (kind) => {
  const warnings: Array<{ msg: string; migrations?: string[] }> = [];
  const logger = createLogger(
    { level: 'warn' },
    new Writable({
      write(chunk, _encoding, done) {
        warnings.push(JSON.parse(String(chunk)) as { msg: string; migrations?: string[] });
        done();
      },
    }),
  );
  let test: TestDatabase | undefined;
  let db: Database;
  let names: string[];
  beforeAll(async () => {
    names = (await readMigrations()).migrationDirectories.map((d) => d.path);
    if (kind.name === 'pglite') {
      db = await openDatabase({ dataDir: undefined }, { logger });
    } else {
      test = await kind.create({ empty: true });
      db = await openDatabase(test.target, { logger });
    }
  });
  afterAll(async () => {
    await db.close();
    await test?.drop();
  });

  it('finds every migration pending on a new database, applies them, then finds none', async () => {
    expect(await db.pendingMigrations()).toEqual(names);
    expect(await db.migrate()).toEqual(names);
    expect(await db.pendingMigrations()).toEqual([]);
    expect(await db.migrate()).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('says which applied migration no longer matches its file, and applies nothing', async () => {
    await db.query(`UPDATE _prisma_migrations SET checksum = 'edited' WHERE migration_name = $1`, [names[0]]);
    expect(await db.migrate()).toEqual([]);
    expect(warnings).toEqual([
      expect.objectContaining({ migrations: [names[0]], msg: expect.stringContaining('differ from their migration.sql') }),
    ]);
    // Still ready: as with `prisma migrate deploy`, an edited applied migration is not pending.
    expect(await db.pendingMigrations()).toEqual([]);
  });

  it('counts a failed migration as pending, and the engine refuses to go on', async () => {
    const failed = names[names.length - 1]!;
    await db.query(`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = $1`, [failed]);
    expect(await db.pendingMigrations()).toEqual([failed]);
    await expect(db.migrate()).rejects.toThrow(/failed migrations/);
  }, 120_000);
});

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { databaseTemplates, templateImage } from './database-template.ts';

export interface TestDatabase {
  db: Database;
  /** For code that opens its own connection (startGateway, the CLI). */
  target: { databaseUrl: string } | { dataDir: undefined };
  drop(): Promise<void>;
}

export interface TestDatabaseKind {
  name: 'pglite' | 'postgresql';
  /** `empty`: no migration applied (the tests of migrating), not the run's migrated template. */
  create(options?: { empty?: boolean }): Promise<TestDatabase>;
}

/**
 * PGlite always; PostgreSQL too when TEST_DATABASE_URL is set. Each call makes a fresh
 * database, already migrated when the run made a template (database-template.ts).
 */
export function testDatabaseKinds(): TestDatabaseKind[] {
  const kinds: TestDatabaseKind[] = [
    {
      name: 'pglite',
      async create({ empty = false } = {}) {
        const image = empty ? undefined : await templateImage();
        const db = await openDatabase(image === undefined ? { dataDir: undefined } : { dataDir: undefined, image });
        return { db, target: { dataDir: undefined }, drop: () => db.close() };
      },
    },
  ];
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl !== undefined && adminUrl !== '') {
    kinds.push({
      name: 'postgresql',
      async create({ empty = false } = {}) {
        const name = `payout_test_${randomBytes(6).toString('hex')}`;
        const template = empty ? undefined : databaseTemplates()?.postgresTemplate;
        await admin(adminUrl, template === undefined ? `CREATE DATABASE "${name}"` : `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        const url = new URL(adminUrl);
        url.pathname = `/${name}`;
        const db = await openDatabase({ databaseUrl: url.toString() });
        return {
          db,
          target: { databaseUrl: url.toString() },
          async drop() {
            await db.close();
            await admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
          },
        };
      },
    });
  }
  return kinds;
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

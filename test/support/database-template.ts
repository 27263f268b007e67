import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { migrationsDir } from '../../src/db/migrations.ts';

/**
 * One migrated database per schema, made once and copied for each test: a new PGlite cluster
 * costs seconds of initdb in wasm (4 s at load 6, against under 1 s from an image), and every
 * test database, CLI data directory and gateway started by a test needs one. Keyed by the
 * migrations and PGlite's version, so a changed migration makes a new template and an old
 * one is never used. What a first start does (initdb, the migrations) keeps its own tests,
 * which open databases without a template (test/db, test/app/gateway-start.test.ts).
 */
export interface DatabaseTemplates {
  /** A DATA_DIR holding a migrated embedded database (`pglite/`), to copy. */
  dataDir: string;
  /** The same database as a PGlite data directory image (`loadDataDir`). */
  image: string;
  /** A migrated PostgreSQL database to create test databases from, when TEST_DATABASE_URL is set. */
  postgresTemplate?: string;
}

const ENV = 'PAYOUT_TEST_DATABASE_TEMPLATES';

/** Made by the global setup (test/global-setup.ts) and handed to the test workers by environment. */
export async function makeDatabaseTemplates(): Promise<void> {
  const key = await schemaKey();
  const root = join(tmpdir(), 'payout-test-templates', key);
  if (!existsSync(join(root, 'image.tar'))) {
    const building = `${root}.${process.pid}`;
    await rm(building, { recursive: true, force: true });
    await mkdir(join(building, 'data'), { recursive: true });
    const db = await openDatabase({ dataDir: join(building, 'data') });
    await db.migrate();
    await db.close();
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create(join(building, 'data', 'pglite'));
    await writeFile(join(building, 'image.tar'), Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
    await pglite.close();
    // Another run may have made it meanwhile: theirs is the same.
    await rename(building, root).catch(() => rm(building, { recursive: true, force: true }));
  }
  const templates: DatabaseTemplates = { dataDir: join(root, 'data'), image: join(root, 'image.tar') };
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl !== undefined && adminUrl !== '') templates.postgresTemplate = await postgresTemplate(adminUrl, key);
  process.env[ENV] = JSON.stringify(templates);
}

export function databaseTemplates(): DatabaseTemplates | undefined {
  const value = process.env[ENV];
  return value === undefined || value === '' ? undefined : (JSON.parse(value) as DatabaseTemplates);
}

/** Copies the migrated embedded database into a new DATA_DIR (a CLI's, a gateway's). */
export async function seedDataDir(dataDir: string): Promise<void> {
  const templates = databaseTemplates();
  if (templates !== undefined) await cp(join(templates.dataDir, 'pglite'), join(dataDir, 'pglite'), { recursive: true });
}

let image: Promise<Blob> | undefined;
/** The migrated database's image, read once per test process. */
export function templateImage(): Promise<Blob> | undefined {
  const templates = databaseTemplates();
  if (templates === undefined) return undefined;
  image ??= readFile(templates.image).then((bytes) => new Blob([bytes]));
  return image;
}

async function postgresTemplate(adminUrl: string, key: string): Promise<string> {
  const name = `payout_template_${key}`;
  const exists = await admin(
    adminUrl,
    async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1,
  );
  if (exists) return name;
  const building = `${name}_${process.pid}`;
  await admin(adminUrl, (client) => client.query(`CREATE DATABASE "${building}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${building}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  await db.migrate();
  await db.close();
  await admin(adminUrl, async (client) => {
    try {
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
    } catch {
      // Another run made it meanwhile.
      await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
    }
  });
  return name;
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The migrations' names and text, and PGlite's version: what the template's content follows from. */
async function schemaKey(): Promise<string> {
  const hash = createHash('sha256');
  const { version } = JSON.parse(
    await readFile(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
  ) as {
    version: string;
  };
  hash.update(version);
  for (const name of (await readdir(migrationsDir)).sort()) {
    const file = join(migrationsDir, name, 'migration.sql');
    if (existsSync(file)) hash.update(name).update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

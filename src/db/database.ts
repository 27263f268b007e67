import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Logger } from '../log/logger.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import type { PrismaClient } from './generated/client.ts';
import { applyMigrations, readMigrations } from './migrations.ts';

/**
 * The drivers and Prisma's client load when a database is opened, not with this module:
 * code that only names its types (the importer, `payout batch validate`) starts without them.
 */
const prismaClient = async () => (await import('./generated/client.ts')).PrismaClient;

let committed: Promise<string[]> | undefined;
/** The folders shipped with this build; they do not change while the process runs. */
function committedMigrations(): Promise<string[]> {
  committed ??= readMigrations().then((list) => list.migrationDirectories.map((d) => d.path));
  return committed;
}

export type { PrismaClient };
export { DataDirInUseError } from './data-dir-lock.ts';

/**
 * Raw SQL on the same connections as Prisma. For the batch worker's hot path only: Prisma's
 * $queryRawUnsafe costs about 2 ms of CPU for a statement carrying a group of rows as
 * arrays, the pg driver itself under 1 ms (measured, see docs/benchmarks.md). Integers come
 * back as numbers, bigint and numeric as the caller casts them (text).
 */
export type SqlQuery = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

/** The same through Prisma, for code that holds only a PrismaClient (off the hot path). */
export function prismaQuery(prisma: PrismaClient): SqlQuery {
  return <Row>(sql: string, params: unknown[]) => prisma.$queryRawUnsafe<Row[]>(sql, ...params);
}

export interface Database {
  readonly prisma: PrismaClient;
  readonly kind: 'pglite' | 'postgresql';
  readonly query: SqlQuery;
  /** Applies pending migrations; returns the names applied now. */
  migrate(): Promise<string[]>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /** Migration folders not (successfully) applied to this database. */
  pendingMigrations(): Promise<string[]>;
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { databaseUrl: string }
  /** Embedded PGlite; `dataDir` undefined means in memory (tests). */
  | { dataDir: string | undefined };

/**
 * PostgreSQL through @prisma/adapter-pg when a URL is given, otherwise embedded PGlite.
 * An embedded database on disk is locked to this process (DataDirInUseError names the
 * holder): the one way every command opens it, so no two can open it at once.
 */
export async function openDatabase(target: DatabaseTarget, options: { logger?: Logger } = {}): Promise<Database> {
  if ('databaseUrl' in target) {
    // A connection the server ends (a restart, pg_terminate_backend) is an 'error' event on
    // the pool: logged, never fatal. The next query opens a new connection.
    const onError = (err: Error) => options.logger?.warn({ err }, 'database connection lost; it is replaced on the next query');
    const [{ default: pg }, { PrismaPg }, PrismaClient] = await Promise.all([import('pg'), import('@prisma/adapter-pg'), prismaClient()]);
    const pool = new pg.Pool({ connectionString: target.databaseUrl });
    pool.on('error', onError);
    const factory = new PrismaPg(pool, { onPoolError: onError, onConnectionError: onError });
    const query: SqlQuery = async <Row>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as Row[];
    return wrap('postgresql', new PrismaClient({ adapter: factory }), query, () => new PrismaPg({ connectionString: target.databaseUrl }), () => pool.end());
  }
  let dataPath: string | undefined;
  let lock: DataDirLock | undefined;
  if (target.dataDir !== undefined) {
    lock = lockDataDir(target.dataDir);
    dataPath = join(target.dataDir, 'pglite');
  }
  let pglite: PGlite;
  let loaded: [typeof import('pglite-prisma-adapter'), typeof import('./generated/client.ts').PrismaClient];
  try {
    if (dataPath !== undefined) mkdirSync(dataPath, { recursive: true });
    const { PGlite } = await import('@electric-sql/pglite');
    // Prisma's client loads while PGlite starts.
    const loading = Promise.all([import('pglite-prisma-adapter'), prismaClient()]);
    loading.catch(() => {});
    pglite = await PGlite.create(dataPath);
    loaded = await loading;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const [{ PrismaPGlite }, PrismaClient] = loaded;
  const factory = new PrismaPGlite(pglite);
  const query: SqlQuery = async <Row>(sql: string, params: unknown[]) => (await pglite.query<Row>(sql, params)).rows;
  return wrap('pglite', new PrismaClient({ adapter: factory }), query, () => factory, async () => {
    try {
      await pglite.close();
    } finally {
      lock?.release();
    }
  });
}

function wrap(
  kind: Database['kind'],
  prisma: PrismaClient,
  query: SqlQuery,
  migrationAdapter: () => SqlMigrationAwareDriverAdapterFactory,
  closeDriver: () => Promise<void>,
): Database {
  let closing: Promise<void> | undefined;
  return {
    prisma,
    kind,
    query,
    async migrate() {
      // Loading the wasm engine takes seconds; most starts have nothing to apply.
      if ((await this.pendingMigrations()).length === 0) return [];
      return applyMigrations(migrationAdapter());
    },
    async ping() {
      await prisma.$queryRaw`SELECT 1`;
    },
    async pendingMigrations() {
      const [table] = await prisma.$queryRaw<Array<{ name: string | null }>>`SELECT to_regclass('_prisma_migrations')::text AS name`;
      const rows =
        table?.name == null
          ? []
          : await prisma.$queryRaw<Array<{ migration_name: string }>>`
              SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
      const applied = new Set(rows.map((row) => row.migration_name));
      return (await committedMigrations()).filter((name) => !applied.has(name));
    },
    close() {
      // Shared between a gateway and its owner (tests): the second close is a no-op.
      closing ??= (async () => {
        await prisma.$disconnect();
        await closeDriver();
      })();
      return closing;
    },
  };
}

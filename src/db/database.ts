import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Logger } from '../log/logger.ts';
import { copyWriter, pgCopy, pgliteCopy, type BulkWriter } from './bulk-insert.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { createPgPool } from './pg-pool.ts';
import { retryLostTransactions } from './transaction-retry.ts';
import type { Prisma, PrismaClient } from './generated/client.ts';
import { applyMigrations, readMigrations } from './migrations.ts';

/**
 * The drivers and Prisma's client load when a database is opened, not with this module:
 * code that only names its types (the importer, `payout batch validate`) starts without them.
 */
const prismaClient = async () => (await import('./generated/client.ts')).PrismaClient;

let committed: Promise<Array<{ name: string; checksum: string }>> | undefined;
/**
 * The folders shipped with this build, with the checksum Prisma records for each in
 * `_prisma_migrations` (sha256 of migration.sql, hex); they do not change while the process runs.
 */
function committedMigrations(): Promise<Array<{ name: string; checksum: string }>> {
  committed ??= readMigrations().then((list) =>
    list.migrationDirectories.map((d) => ({
      name: d.path,
      checksum: d.migrationFile.content.tag === 'ok' ? createHash('sha256').update(d.migrationFile.content.value).digest('hex') : '',
    })),
  );
  return committed;
}

export type { PrismaClient };
export { DataDirInUseError } from './data-dir-lock.ts';

/**
 * The one way raw SQL reaches the database outside src/db/: a statement with positional
 * parameters ($1, $2 …), its rows back. Every statement lives in a verb-named file of its
 * room's sql/ folder and takes one of these (test/db/one-way-to-sql.test.ts).
 *
 * Two sources give one. `Database.query` runs on the driver itself, on the same connections
 * as Prisma: the batch worker's hot path, since Prisma's $queryRawUnsafe costs about 2 ms of
 * CPU for a statement carrying a group of rows as arrays, the pg driver under 1 ms (measured,
 * see docs/internals/benchmarks/paying.md). `sqlOf(prisma or tx)` runs through Prisma, for code that
 * holds only a PrismaClient or is inside an interactive transaction (off the hot path).
 * Integers come back as numbers, bigint and numeric as the caller casts them (text).
 */
export type SqlQuery = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

/** What sqlOf takes: the client, or the client of an interactive transaction (`$transaction(async (tx) => …)`). */
export type SqlClient = PrismaClient | Prisma.TransactionClient;

/** Raw SQL through Prisma: on the client's connections, or inside the transaction `tx`. */
export function sqlOf(client: SqlClient): SqlQuery {
  return <Row>(sql: string, params: unknown[]) => client.$queryRawUnsafe<Row[]>(sql, ...params);
}

export interface Database {
  readonly prisma: PrismaClient;
  readonly kind: 'pglite' | 'postgresql';
  readonly query: SqlQuery;
  /** Many rows in one statement (COPY): the batch import's writes. */
  readonly bulk: BulkWriter;
  /** Applies pending migrations; returns the names applied now. */
  migrate(): Promise<string[]>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /** Migration folders not (successfully) applied to this database. */
  pendingMigrations(): Promise<string[]>;
  /**
   * PGlite: calls `onPayload` with each NOTIFY on `channel` (one process: what its statements
   * notify, at their commit). PostgreSQL has no such method: a process listens on a
   * connection of its own (events/pg-event-target.ts).
   */
  listen?(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { databaseUrl: string }
  /**
   * Embedded PGlite; `dataDir` undefined means in memory (tests), started from `image` (a
   * data directory PGlite dumped, the tests' migrated template) when one is given rather
   * than from a new cluster: seconds of initdb saved per database.
   */
  | { dataDir: string | undefined; image?: Blob };

/**
 * PostgreSQL through @prisma/adapter-pg when a URL is given, otherwise embedded PGlite.
 * An embedded database on disk is locked to this process (DataDirInUseError names the
 * holder): the one way every command opens it, so no two can open it at once.
 */
export async function openDatabase(target: DatabaseTarget, options: { logger?: Logger } = {}): Promise<Database> {
  if ('databaseUrl' in target) {
    const [{ default: pg }, { PrismaPg }, PrismaClient] = await Promise.all([import('pg'), import('@prisma/adapter-pg'), prismaClient()]);
    const pool = createPgPool(pg, target.databaseUrl, options.logger);
    const query: SqlQuery = async <Row>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as Row[];
    const migrationAdapter = () => new PrismaPg(createPgPool(pg, target.databaseUrl, options.logger), { disposeExternalPool: true });
    return wrap(
      'postgresql',
      new PrismaClient({ adapter: new PrismaPg(pool) }),
      query,
      copyWriter(pgCopy(pool)),
      migrationAdapter,
      () => pool.end(),
      options.logger,
    );
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
    const image = 'image' in target && dataPath === undefined ? target.image : undefined;
    pglite = image === undefined ? await PGlite.create(dataPath) : await PGlite.create({ loadDataDir: image });
    loaded = await loading;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const [{ PrismaPGlite }, PrismaClient] = loaded;
  const factory = new PrismaPGlite(pglite);
  const query: SqlQuery = async <Row>(sql: string, params: unknown[]) => (await pglite.query<Row>(sql, params)).rows;
  const database = wrap(
    'pglite',
    new PrismaClient({ adapter: factory }),
    query,
    copyWriter(pgliteCopy(pglite)),
    () => factory,
    async () => {
      try {
        await pglite.close();
      } finally {
        lock?.release();
      }
    },
    options.logger,
  );
  return Object.assign(database, {
    listen: (channel: string, onPayload: (payload: string) => void) => pglite.listen(channel, onPayload),
  });
}

function wrap(
  kind: Database['kind'],
  prisma: PrismaClient,
  query: SqlQuery,
  bulk: BulkWriter,
  migrationAdapter: () => SqlMigrationAwareDriverAdapterFactory,
  closeDriver: () => Promise<void>,
  logger?: Logger,
): Database {
  let closing: Promise<void> | undefined;
  if (kind === 'postgresql') retryLostTransactions(prisma, logger);
  /**
   * One query on `_prisma_migrations` against the shipped folders: which are not applied
   * (or failed, or were rolled back), and which applied ones no longer match their file.
   */
  const history = async () => {
    let rows: Array<{ migration_name: string; checksum: string; applied: boolean }>;
    try {
      rows = await query(
        'SELECT migration_name, checksum, finished_at IS NOT NULL AND rolled_back_at IS NULL AS applied FROM _prisma_migrations',
        [],
      );
    } catch (error) {
      // 42P01: a new database without the table; everything is pending.
      if ((error as { code?: unknown }).code !== '42P01') throw error;
      rows = [];
    }
    const applied = new Map(rows.filter((row) => row.applied).map((row) => [row.migration_name, row.checksum]));
    const shipped = await committedMigrations();
    return {
      pending: shipped.filter((m) => !applied.has(m.name)).map((m) => m.name),
      edited: shipped.filter((m) => applied.has(m.name) && applied.get(m.name) !== m.checksum).map((m) => m.name),
    };
  };
  return {
    prisma,
    kind,
    query,
    bulk,
    async migrate() {
      const { pending, edited } = await history();
      // As `prisma migrate deploy` (and the engine here) do, an edited migration that was
      // applied is not applied again; it is said, since the database may differ from the file.
      if (edited.length > 0) {
        logger?.warn(
          { migrations: edited },
          'applied migrations differ from their migration.sql (checksum); the database was made by the old text',
        );
      }
      // Loading the wasm engine takes seconds; most starts have nothing to apply. A failed
      // migration counts as pending, so the engine refuses it with its own message.
      if (pending.length === 0) return [];
      return applyMigrations(migrationAdapter());
    },
    async ping() {
      await prisma.$queryRaw`SELECT 1`;
    },
    async pendingMigrations() {
      return (await history()).pending;
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

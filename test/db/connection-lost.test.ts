import type { GraphQLError } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTrouble, isConnectionLost } from '../../src/db/connection-lost.ts';
import { DatabaseUnavailableFor, maskError } from '../../src/graphql/error-codes.ts';
import { createPgPool } from '../../src/db/pg-pool.ts';
import { createLogger } from '../../src/log/logger.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { DatabaseRestart } from '../support/fault-database.ts';

/**
 * Issue 27: a PostgreSQL backend ended while its connection was checked out of the pool (a
 * transaction between two statements, a COPY) threw an unhandled 'error' event and stopped
 * the process. Each case ends one chosen backend at a chosen point, so nothing here depends
 * on timing: the test waits for the backend to be where it should, then ends it.
 */
const postgres = testDatabaseKinds().find((kind) => kind.name === 'postgresql');

describe.runIf(postgres !== undefined)('a database connection ended under the process (PostgreSQL)', () => {
  let database: TestDatabase;
  let url: string;
  let admin: pg.Client;
  const warnings: string[] = [];
  const logger = createLogger({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });

  beforeAll(async () => {
    database = await postgres!.create();
    url = (database.target as { databaseUrl: string }).databaseUrl;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await database.db.query('CREATE TABLE lost_connection_probe (attempt int)', []);
  });
  afterAll(async () => {
    await admin?.end();
    await database?.drop();
  });

  const pidOf = async (client: pg.PoolClient) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const terminate = (pid: number) => admin.query('SELECT pg_terminate_backend($1)', [pid]);
  /** The pid of the one backend running `sql` now, once it is. */
  const backendRunning = (text: string) =>
    eventually(async () => {
      const rows = (
        await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid() AND state = 'active'",
          [`%${text}%`],
        )
      ).rows;
      expect(rows).toHaveLength(1);
      return rows[0]!.pid;
    }, 60_000);

  it('turns an ended backend of a checked-out client into a failed statement, logged once, and the process lives on', async () => {
    const pool = createPgPool(pg, url, logger);
    try {
      // Checked out and idle, as a transaction between statements or a COPY about to start: node-postgres listens for nothing then.
      const client = await pool.connect();
      const pid = await pidOf(client);
      const before = warnings.length;
      await terminate(pid);
      await eventually(() => expect(warnings.length).toBeGreaterThan(before));
      const failed = await client.query('SELECT 1').then(
        () => undefined,
        (error: unknown) => error,
      );
      client.release(failed as Error);
      expect(isConnectionLost(failed)).toBe(true);
      const told = warnings.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(told).toHaveLength(1);
      expect(told[0]).toMatchObject({
        msg: expect.stringMatching(/database connection lost/),
        code: '57P01',
        reason: expect.stringMatching(/terminating connection/),
      });
      // Only the words and the code: never the client with its host, user and database.
      expect(JSON.stringify(told[0])).not.toMatch(/connectionParameters|127\.0\.0\.1|postgres@/);
      expect((await pool.query<{ ok: number }>('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('classifies what each path throws for an ended backend as a lost connection', async () => {
    const { db } = database;
    const errors: unknown[] = [];
    const paths: Array<[string, (marker: string) => Promise<unknown>]> = [
      ['raw SQL', (marker) => db.query(`SELECT pg_sleep(30)::text AS "${marker}"`, [])],
      ['Prisma', (marker) => db.prisma.$queryRawUnsafe(`SELECT pg_sleep(30)::text AS "${marker}"`)],
    ];
    for (const [name, run] of paths) {
      const marker = `lost-${name.replace(/\W/g, '')}`;
      const running = run(marker).then(
        () => new Error(`${name}: the statement finished`),
        (error: unknown) => error,
      );
      await terminate(await backendRunning(marker));
      errors.push(await running);
    }
    expect(errors.map((error) => isConnectionLost(error))).toEqual([true, true]);
    expect(isConnectionLost(new Error('duplicate key value violates unique constraint'))).toBe(false);
  });

  it('runs a transaction again whose connection was lost before it committed, and commits it once', async () => {
    const { db } = database;
    let attempts = 0;
    const ending = backendRunning('in-the-first-attempt').then(terminate);
    await db.prisma.$transaction(async (tx) => {
      attempts++;
      await tx.$executeRawUnsafe('INSERT INTO lost_connection_probe VALUES ($1)', attempts);
      // The first attempt waits here until its backend is ended; the second goes through.
      if (attempts === 1) await tx.$queryRawUnsafe('SELECT pg_sleep(30)::text AS "in-the-first-attempt"');
    });
    await ending;
    expect(attempts).toBe(2);
    expect(await db.query('SELECT attempt FROM lost_connection_probe', [])).toEqual([{ attempt: 2 }]);
  });
});

/**
 * Issue 37: what each path throws while the database is in trouble is told apart from a
 * statement's own failure, in words with no driver or Prisma text. Before, a database closed
 * to new connections (55000, as during a restart) and Prisma's "Unable to start a transaction
 * in the given time" (P2028, every connection taken) reached GraphQL callers as "Unexpected error.".
 */
describe.runIf(postgres !== undefined)('a database in trouble, in words (PostgreSQL)', () => {
  let database: TestDatabase;
  let url: string;
  let restart: DatabaseRestart;

  beforeAll(async () => {
    database = await postgres!.create();
    url = (database.target as { databaseUrl: string }).databaseUrl;
    restart = await DatabaseRestart.of(url);
  });
  afterAll(async () => {
    await restart?.end();
    await database?.drop();
  });

  const failure = (run: () => Promise<unknown>) =>
    run().then(
      () => new Error('it did not fail'),
      (error: unknown) => error,
    );
  /** What a GraphQL caller is told of the error (yoga's mask with the gateway's codes). */
  const told = (error: unknown) => {
    const masked = maskError(error, 'Unexpected error.') as GraphQLError;
    return { message: masked.message, extensions: masked.extensions };
  };

  it('a database closed to new connections (a restart): every path says so, and a caller gets DATABASE_UNAVAILABLE', async () => {
    const { db } = database;
    await db.query('SELECT 1', []);
    await restart.down();
    try {
      // A pooled session ended a moment ago may carry the first statement (a lost connection, in
      // words too); the pool drops it, and the next one meets the closed database.
      const closed = async (run: () => Promise<unknown>) => {
        const error = await failure(run);
        return databaseTrouble(error)?.reason === 'connection-lost' ? failure(run) : error;
      };
      const errors = [
        await closed(() => db.query('SELECT 1', [])),
        await closed(() => db.ping()),
        await closed(() => db.prisma.batch.findMany({ take: 1 })),
        await closed(() => db.prisma.$transaction(async (tx) => tx.batch.findMany({ take: 1 }))),
      ];
      const words = 'the database is not accepting connections (closed to new connections)';
      expect(errors.map((error) => databaseTrouble(error))).toEqual(errors.map(() => ({ reason: 'not-accepting', words })));
      for (const error of errors) {
        const { message, extensions } = told(error);
        expect(extensions).toEqual({ code: 'DATABASE_UNAVAILABLE', retryable: true, reason: 'not-accepting' });
        expect(message).toBe(
          `The database is unavailable: ${words}. This request may or may not have taken effect: read the object again, then repeat the request if it is still needed.`,
        );
      }
      // createPayment names its payment, the one the gateway made included: the caller repeats with it.
      expect(told(new DatabaseUnavailableFor(errors[3], 'pay-37'))).toEqual({
        message: `The database is unavailable: ${words}. This request may or may not have taken effect: read payment pay-37 again, then repeat the request with paymentId pay-37 if it is still needed (the same paymentId never pays twice).`,
        extensions: { code: 'DATABASE_UNAVAILABLE', retryable: true, reason: 'not-accepting', paymentId: 'pay-37' },
      });
    } finally {
      await restart.up();
    }
  });

  it('every connection of the pool taken: a transaction that could not start says the database is busy', async () => {
    const { db } = database;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('SELECT pg_advisory_lock(37)');
    // The pool's 10 connections (pg's default), each waiting on the lock the test holds.
    const holding = Array.from({ length: 10 }, () => db.query('SELECT pg_advisory_xact_lock_shared(37)', []).catch(() => undefined));
    try {
      await eventually(async () => {
        const waiting = await admin.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        expect(waiting.rows[0].n).toBe(10);
      }, 60_000);
      const error = await failure(() => db.prisma.$transaction(async (tx) => tx.batch.findMany({ take: 1 })));
      expect(databaseTrouble(error)).toEqual({ reason: 'busy', words: 'the database is busy: no connection was free in time' });
      expect(told(error).extensions).toMatchObject({ code: 'DATABASE_UNAVAILABLE', retryable: true });
    } finally {
      await admin.query('SELECT pg_advisory_unlock(37)');
      await Promise.all(holding);
      await admin.end();
    }
  });

  it('a statement’s own failure is not trouble, and is masked as before', async () => {
    const error = await failure(() => database.db.query('SELECT 1/0', []));
    expect(databaseTrouble(error)).toBeUndefined();
    expect(told(error).message).toBe('Unexpected error.');
  });
});

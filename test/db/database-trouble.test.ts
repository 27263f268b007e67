import { describe, expect, it } from 'vitest';
import { databaseTrouble, isConnectionLost } from '../../src/db/connection-lost.ts';

/**
 * The one classification of a database in trouble (issue 37), on the shapes each layer throws:
 * node-postgres's error, Prisma's DriverAdapterError inside a known request error, Prisma's
 * own codes. test/db/connection-lost.test.ts meets the real ones on PostgreSQL.
 */
const pgError = (code: string, message: string, severity = 'FATAL') => Object.assign(new Error(message), { code, severity });
/** As Prisma 7 wraps a driver error: P2010 (raw) or P2039 around `meta.driverAdapterError`. */
const prismaWrapped = (cause: Record<string, unknown>, code = 'P2039') =>
  Object.assign(new Error(`\nInvalid \`prisma.batch.findMany()\` invocation:\n\nDatabase error. Code: \`${String(cause.originalCode)}\``), {
    code,
    meta: { driverAdapterError: Object.assign(new Error('DriverAdapterError'), { name: 'DriverAdapterError', cause }) },
  });

describe('databaseTrouble', () => {
  it.each([
    [
      'a restart starting up (57P03)',
      pgError('57P03', 'the database system is starting up'),
      'not-accepting',
      'the database is not accepting connections (starting up)',
    ],
    [
      'a restart shutting down (57P03)',
      pgError('57P03', 'the database system is shutting down'),
      'not-accepting',
      'the database is not accepting connections (shutting down)',
    ],
    [
      'pg_terminate_backend (57P01)',
      pgError('57P01', 'terminating connection due to administrator command'),
      'connection-lost',
      'the database ended the connection (an administrator or a restart)',
    ],
    [
      'a database closed to connections, wrapped by Prisma',
      prismaWrapped({
        kind: 'postgres',
        code: '55000',
        originalCode: '55000',
        severity: 'FATAL',
        message: 'database "x" is not currently accepting connections',
      }),
      'not-accepting',
      'the database is not accepting connections (closed to new connections)',
    ],
    [
      '57P03 in a raw query, wrapped by Prisma',
      prismaWrapped(
        { kind: 'postgres', code: '57P03', originalCode: '57P03', severity: 'FATAL', message: 'the database system is starting up' },
        'P2010',
      ),
      'not-accepting',
      'the database is not accepting connections (starting up)',
    ],
    [
      'refused, as Prisma maps it',
      prismaWrapped({ kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 }, 'P1001'),
      'unreachable',
      'the database server cannot be reached',
    ],
    [
      'a reset socket',
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read', errno: -104 }),
      'connection-lost',
      'the connection to the database was lost',
    ],
    [
      'the driver after a lost connection',
      new Error('Connection terminated unexpectedly'),
      'connection-lost',
      'the connection to the database was lost',
    ],
    [
      'no connection free in time (P2028)',
      Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' }),
      'busy',
      'the database is busy: no connection was free in time',
    ],
    [
      'too many connections (53300)',
      pgError('53300', 'sorry, too many clients already'),
      'busy',
      'the database has no connection to spare (too many connections)',
    ],
    ['any session ended FATAL', pgError('XX000', 'something else', 'FATAL'), 'connection-lost', 'the database ended the session'],
  ])('%s', (_case, error, reason, words) => {
    expect(databaseTrouble(error)).toEqual({ reason, words });
    expect(isConnectionLost(error)).toBe(true);
    // The words never carry the driver's text.
    expect(words).not.toMatch(/prisma|invocation|"x"|127\.0\.0\.1/i);
  });

  it.each([
    ['a unique violation', pgError('23505', 'duplicate key value violates unique constraint', 'ERROR')],
    ['55000 as a statement error', pgError('55000', 'cannot refresh materialized view concurrently', 'ERROR')],
    [
      'a unique violation wrapped by Prisma',
      prismaWrapped({ kind: 'UniqueConstraintViolation', constraint: { fields: ['paymentId'] } }, 'P2002'),
    ],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'status')")],
  ])('%s is the statement’s own failure', (_case, error) => {
    expect(databaseTrouble(error)).toBeUndefined();
  });
});

/**
 * The one place that tells a database in trouble from a statement's own failure, and says
 * what the trouble is in words for whoever meets it (GraphQL's DATABASE_UNAVAILABLE, /readyz,
 * the webhook intake, the CLI): never the driver's or Prisma's text, which names hosts,
 * databases and Prisma's own invocation.
 *
 * Trouble, however Prisma wraps it (its DriverAdapterError in `meta.driverAdapterError`, a
 * P2010/P2039 around the server's code, a plain pg error): the server ended the session
 * (57P01 administrator command, 57P02 crash shutdown, any FATAL), it does not take connections
 * now (57P03 starting up or shutting down, 55000 at connect: a database closed to new
 * connections, 53300 too many), the socket broke or never opened (class 08, ECONNRESET,
 * ECONNREFUSED …), the driver refuses a client that already saw such an error, or no
 * connection was free in time (Prisma's P2028 "Unable to start a transaction in the given
 * time"). Nothing sent on such a connection after its last commit took effect; what is retried
 * and what is refused is docs/decisions/0018-database-connections-end.md.
 */
export type DatabaseTroubleReason = 'connection-lost' | 'not-accepting' | 'unreachable' | 'busy' | 'refused';

export interface DatabaseTrouble {
  /** A stable name for the kind of trouble (GraphQL's `extensions.reason`). */
  reason: DatabaseTroubleReason;
  /** What is wrong, in words, lower case, with no driver text: "the database is not accepting connections (starting up)". */
  words: string;
}

const lost = (words: string): DatabaseTrouble => ({ reason: 'connection-lost', words });
const CONNECTION_LOST = lost('the connection to the database was lost');

const SOCKET_LOST = new Set(['ECONNRESET', 'EPIPE', 'ENOTCONN', 'ECONNABORTED']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const DRIVER_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Server has closed the connection',
];

/** The trouble a database error shows, or undefined when it is the statement's own failure (a constraint, a bug). */
export function databaseTrouble(error: unknown): DatabaseTrouble | undefined {
  for (let cause: unknown = error, depth = 0; cause !== undefined && cause !== null && depth < 6; depth++) {
    const found = troubleOf(cause as Fields);
    if (found !== undefined) return found;
    const meta = (cause as { meta?: { driverAdapterError?: unknown } }).meta;
    cause = meta?.driverAdapterError ?? (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The statement failed for the database's trouble (databaseTrouble), not its own. */
export function isConnectionLost(error: unknown): boolean {
  return databaseTrouble(error) !== undefined;
}

interface Fields {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  originalMessage?: unknown;
  severity?: unknown;
}

function troubleOf(cause: Fields): DatabaseTrouble | undefined {
  const text = [cause.originalMessage, cause.message].filter((m): m is string => typeof m === 'string').join(' ');
  for (const code of [cause.code, cause.originalCode]) {
    if (typeof code !== 'string') continue;
    const found = byCode(code, text, cause.severity);
    if (found !== undefined) return found;
  }
  switch (cause.kind) {
    case 'ConnectionClosed':
      return CONNECTION_LOST;
    case 'DatabaseNotReachable':
      return { reason: 'unreachable', words: 'the database server cannot be reached' };
    case 'SocketTimeout':
      return { reason: 'unreachable', words: 'the database did not answer in time' };
    case 'TooManyConnections':
      return { reason: 'busy', words: 'the database has no connection to spare (too many connections)' };
    case 'DatabaseDoesNotExist':
      return { reason: 'refused', words: 'the database does not exist on its server' };
    case 'AuthenticationFailed':
    case 'DatabaseAccessDenied':
      return { reason: 'refused', words: 'the database refused the gateway’s credentials' };
  }
  // Any error the server ends the session with (FATAL, PANIC) takes the connection with it.
  if (cause.severity === 'FATAL' || cause.severity === 'PANIC') return lost('the database ended the session');
  if (text.includes('timeout exceeded when trying to connect') || text.includes('connection timeout')) {
    return { reason: 'unreachable', words: 'the database did not answer in time' };
  }
  if (DRIVER_MESSAGES.some((m) => text.includes(m))) return CONNECTION_LOST;
  return undefined;
}

function byCode(code: string, text: string, severity: unknown): DatabaseTrouble | undefined {
  switch (code) {
    case '57P01':
      return lost('the database ended the connection (an administrator or a restart)');
    case '57P02':
      return lost('the database ended the connection (the server crashed)');
    case '57P03':
      return { reason: 'not-accepting', words: `the database is not accepting connections (${startingOrStopping(text)})` };
    case 'P1001':
      return { reason: 'unreachable', words: 'the database server cannot be reached' };
    case 'P1008':
      return { reason: 'unreachable', words: 'the database did not answer in time' };
    case 'P1017':
      return CONNECTION_LOST;
    case 'P2028':
      return transactionTrouble(text);
  }
  // 55000 at connect (FATAL): ALLOW_CONNECTIONS false; as a statement's ERROR it is the statement's own.
  if (code === '55000' && severity === 'FATAL')
    return { reason: 'not-accepting', words: 'the database is not accepting connections (closed to new connections)' };
  if (code === '53300') return { reason: 'busy', words: 'the database has no connection to spare (too many connections)' };
  if (code === '3D000') return { reason: 'refused', words: 'the database does not exist on its server' };
  if (code === '28P01' || code === '28000') return { reason: 'refused', words: 'the database refused the gateway’s credentials' };
  if (code.startsWith('08') || SOCKET_LOST.has(code)) return CONNECTION_LOST;
  if (UNREACHABLE.has(code)) return { reason: 'unreachable', words: 'the database server cannot be reached' };
  if (code === 'ETIMEDOUT') return { reason: 'unreachable', words: 'the database did not answer in time' };
  return undefined;
}

function startingOrStopping(text: string): string {
  if (text.includes('starting up')) return 'starting up';
  if (text.includes('shutting down')) return 'shutting down';
  if (text.includes('recovery')) return 'in recovery';
  return 'not yet';
}

/**
 * Prisma's P2028 (its interactive transactions): not started within maxWait while every
 * connection was taken or being opened, or ended (timed out, closed) before it committed. Each
 * was rolled back, or never began.
 */
function transactionTrouble(text: string): DatabaseTrouble {
  if (text.includes('Unable to start a transaction'))
    return { reason: 'busy', words: 'the database is busy: no connection was free in time' };
  if (text.includes('expired transaction'))
    return { reason: 'busy', words: 'the database is slow: the transaction ran out of time and was rolled back' };
  return lost('the database transaction was ended before it committed');
}

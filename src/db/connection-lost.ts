/**
 * The database connection a statement ran on was lost: the server ended the session
 * (57P01 administrator command, 57P02 crash shutdown, 57P03 cannot connect now; a failover,
 * an idle-session killer, pg_terminate_backend), the socket broke (class 08, ECONNRESET,
 * EPIPE), or the driver refuses a client that already saw such an error. Nothing sent on
 * that connection after its last commit took effect; what is retried and what is refused
 * is docs/decisions/0018-database-connections-end.md.
 */
const SESSION_ENDED = new Set(['57P01', '57P02', '57P03']);
const SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'ENOTCONN']);
const DRIVER_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  "Server has closed the connection",
];

export function isConnectionLost(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause !== undefined && cause !== null && depth < 6; depth++) {
    const { code, originalCode, kind, message } = cause as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown };
    for (const value of [code, originalCode]) {
      if (typeof value !== 'string') continue;
      if (SESSION_ENDED.has(value) || value.startsWith('08') || SOCKET_ERRORS.has(value)) return true;
      // Prisma's own codes for a closed or unreachable server.
      if (value === 'P1001' || value === 'P1017') return true;
    }
    if (kind === 'ConnectionClosed' || kind === 'DatabaseNotReachable' || kind === 'SocketTimeout') return true;
    if (typeof message === 'string' && DRIVER_MESSAGES.some((text) => message.includes(text))) return true;
    const meta = (cause as { meta?: { driverAdapterError?: unknown } }).meta;
    cause = meta?.driverAdapterError ?? (cause as { cause?: unknown }).cause;
  }
  return false;
}

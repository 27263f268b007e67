import type pg from 'pg';
import type { Logger } from '../log/logger.ts';

/**
 * The one way this process opens PostgreSQL connections for queries: Prisma's adapter, the
 * raw-SQL path and the import's COPY all take clients from this pool.
 *
 * node-postgres emits a lost connection as an 'error' event on the client, and listens for
 * it itself only while the client is idle in the pool: a checked-out client (an interactive
 * transaction between two statements, a COPY, pool.query's short gap after its own listener
 * is spent) had none, so a backend ended at that moment threw from the socket's event and
 * stopped the process. Every client gets a listener here for its whole life, when the pool
 * makes it; the statement or transaction that ran on it fails as its caller already
 * handles (docs/decisions/0018-database-connections-end.md).
 */
export function createPgPool(driver: typeof pg, connectionString: string, logger: Logger | undefined): pg.Pool {
  const pool = new driver.Pool({ connectionString });
  const told = new WeakSet<pg.Client>();
  const lost = (client: pg.Client | undefined, err: Error) => {
    // One line per connection: the ErrorResponse and the socket's end both arrive as errors.
    if (client !== undefined) {
      if (told.has(client)) return;
      told.add(client);
    }
    // Only the words and the code: the error carries the client (host, user, database) too.
    const { code } = err as { code?: unknown };
    logger?.warn(
      { reason: err.message, ...(typeof code === 'string' ? { code } : {}) },
      'database connection lost; the statement on it failed and the next one opens a new connection',
    );
  };
  pool.on('connect', (client) => client.on('error', (err) => lost(client, err)));
  pool.on('error', (err, client) => lost(client, err));
  return pool;
}

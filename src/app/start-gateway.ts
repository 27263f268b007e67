import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/env.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { databaseTarget } from '../db/target.ts';
import type { Logger } from '../log/logger.ts';
import { createGatewayServer } from '../server/http-server.ts';
import { connectUpstream, type Upstream } from './upstream.ts';

export interface RunningGateway {
  url: string;
  db: Database;
  upstream: Upstream;
  server: Server;
  /** Ordered shutdown: stop taking requests, then the upstream, then the database. */
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  // Upstream first: a bad key file should stop startup before the database is touched.
  const upstream = await connectUpstream(config, logger);
  let db: Database;
  try {
    db = await openDatabase(databaseTarget(config));
    const applied = await db.migrate();
    logger.info({ database: db.kind, applied }, applied.length > 0 ? 'migrations applied' : 'database schema up to date');
  } catch (error) {
    await upstream.close();
    throw error;
  }
  const server = createGatewayServer({ db, client: upstream.client, logger });
  // The embedded sandbox has no credentials worth guarding, so it stays on loopback by default.
  const host = config.host ?? (config.payout.mode === 'embedded' ? '127.0.0.1' : '0.0.0.0');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${address.port}`;
  return {
    url,
    db,
    upstream,
    server,
    async stop() {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
      await db.close();
    },
  };
}

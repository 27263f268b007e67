import { request } from 'undici';
import pg from 'pg';
import { apiKey } from './keys.ts';
import { postBatchUpload } from './batch-graphql.ts';

/**
 * What an operator's database does to its clients now and then (a failover, an idle-session
 * killer, a DBA's pg_terminate_backend): every backend of the database but the caller's is
 * ended at once. Returns how many were.
 */
export async function terminateBackends(admin: pg.Client): Promise<number> {
  const killed = await admin.query<{ ok: boolean }>(
    'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return killed.rows.filter((row) => row.ok).length;
}

/**
 * Rounds of terminations beside some work, until stopped: each round ends every backend
 * three times back to back (connections opened again at once are cut too). The pause between
 * rounds only spreads the faults over the work; no assertion depends on it.
 */
export class Terminator {
  terminated = 0;
  rounds = 0;
  private stopped = false;
  private readonly running: Promise<void>;

  constructor(
    private readonly admin: pg.Client,
    options: { pauseMs: number; maxRounds: number },
  ) {
    this.running = (async () => {
      while (!this.stopped && this.rounds < options.maxRounds) {
        for (let i = 0; i < 3; i++) this.terminated += await terminateBackends(this.admin);
        this.rounds++;
        await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      }
    })();
  }

  async stop(): Promise<{ rounds: number; terminated: number }> {
    this.stopped = true;
    await this.running;
    return { rounds: this.rounds, terminated: this.terminated };
  }
}

/**
 * A restart of PostgreSQL as the gateway meets it, played on one database so that the
 * machine's server (shared with other tests) runs on: the database is closed to new
 * connections (each is refused with 55000 "not currently accepting connections", as a
 * restarting server refuses them with 57P03) and every session of it is ended, then it is
 * opened again. A database cannot close itself, so this holds a connection of its own to the
 * server's admin database (TEST_DATABASE_URL), and it touches no database but `name`.
 */
export class DatabaseRestart {
  private constructor(
    private readonly server: pg.Client,
    readonly name: string,
  ) {}

  static async of(databaseUrl: string): Promise<DatabaseRestart> {
    const serverUrl = process.env.TEST_DATABASE_URL;
    if (serverUrl === undefined || serverUrl === '') throw new Error('DatabaseRestart needs TEST_DATABASE_URL');
    const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
    const server = new pg.Client({ connectionString: serverUrl });
    await server.connect();
    return new DatabaseRestart(server, name);
  }

  /** Closes the database to new connections and ends its sessions (three times: those opened meanwhile go too); how many were ended. */
  async down(): Promise<number> {
    await this.server.query(`ALTER DATABASE "${this.name}" ALLOW_CONNECTIONS false`);
    let ended = 0;
    for (let round = 0; round < 3; round++) {
      const killed = await this.server.query<{ ok: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [this.name],
      );
      ended += killed.rows.filter((row) => row.ok).length;
    }
    return ended;
  }

  async up(): Promise<void> {
    await this.server.query(`ALTER DATABASE "${this.name}" ALLOW_CONNECTIONS true`);
  }

  /** Opens the database again (whatever happened) and lets the server connection go. */
  async end(): Promise<void> {
    await this.up().catch(() => {});
    await this.server.end().catch(() => {});
  }
}

export interface GraphQLReply {
  status: number;
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: { code?: string; retryable?: boolean } }>;
}

/** A GraphQL request to a gateway process as one of its keys (test/support/keys.ts names them). */
export async function gqlAs(url: string, key: string, query: string, variables: Record<string, unknown> = {}): Promise<GraphQLReply> {
  const response = await request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey(key)}` },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.statusCode, ...((await response.body.json()) as object) };
}

/** importBatch of a CSV text as a multipart upload, as the page and curl send it. */
export async function uploadCsv(url: string, key: string, csv: string, name: string): Promise<GraphQLReply> {
  const { statusCode, body } = await postBatchUpload(url, csv, {
    key: apiKey(key),
    fileName: name,
    type: 'text/csv',
    variables: { force: true },
    fields: 'id status validCount rowCount',
  });
  return { status: statusCode, ...body };
}

/**
 * The refusal a request meets when the database connection it ran on was ended: a clear,
 * retryable error, never "Unexpected error.". Anything else is returned for the test to judge.
 */
export function lostConnection(reply: GraphQLReply): boolean {
  return (reply.errors ?? []).some((error) => error.extensions?.code === 'DATABASE_UNAVAILABLE' && error.extensions.retryable === true);
}

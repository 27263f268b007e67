import { openRuntime, type Runtime } from '../../src/app/runtime.ts';
import type { BatchWorker } from '../../src/batch/pay/batch-worker.ts';
import { loadGatewayConfig, type Env } from '../../src/config/env.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { createLogger } from '../../src/log/logger.ts';
import { testWorker } from './batch.ts';
import { TEST_DATA_KEY } from './card-data.ts';
import type { TestDatabase, TestDatabaseKind } from './database.ts';
import { startSandbox, WEBHOOK_SECRET, type TestSandbox } from './sandbox.ts';

/**
 * Two processes' runtimes on one database, as a deployment of several gateways and workers
 * runs (issue 41): on PostgreSQL two runtimes, each with its own pool, partner client and
 * budget; on PGlite (one process) one runtime and a second worker beside its own. Their
 * workers are not started: a test starts the ones it means.
 */
export interface Deployment {
  sb: TestSandbox;
  test: TestDatabase;
  runtimes: Runtime[];
  /** The workers: one per runtime on PostgreSQL; the runtime's and a second one beside it on PGlite. */
  workers: BatchWorker[];
  close(): Promise<void>;
}

export async function deployment(kind: TestDatabaseKind, env: Env, sandbox: Parameters<typeof startSandbox>[0] = {}): Promise<Deployment> {
  const sb = await startSandbox({ inProgressMs: 50, ...sandbox });
  const test = await kind.create();
  const url = 'databaseUrl' in test.target ? test.target.databaseUrl : undefined;
  const config = loadGatewayConfig({
    PAYOUT_DATA_KEY: TEST_DATA_KEY,
    READ_BACK_INTERVAL_MS: '100000',
    ...(url === undefined ? {} : { DATABASE_URL: url }),
    ...env,
  });
  const logger = createLogger({ level: 'silent' });
  const open = async (db = test.db) =>
    openRuntime(config, logger, { db, upstream: { client: sb.client(), webhookSecret: WEBHOOK_SECRET, close: async () => {} } });
  const runtimes = [await open()];
  const extraDbs: Database[] = [];
  if (url !== undefined) {
    const second = await openDatabase({ databaseUrl: url });
    extraDbs.push(second);
    runtimes.push(await open(second));
  }
  const workers = runtimes.map((runtime) => runtime.worker);
  if (url === undefined) {
    const first = runtimes[0]!;
    workers.push(testWorker({ db: first.db, services: () => first.services }, { concurrency: 8 }));
  }
  return {
    sb,
    test,
    runtimes,
    workers,
    async close() {
      for (const worker of workers) await worker.stop();
      for (const runtime of runtimes.slice(1)) await runtime.close();
      await runtimes[0]!.close();
      for (const db of extraDbs) await db.close().catch(() => {});
      await sb.close();
      await test.drop();
    },
  };
}

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchEvents } from '../../src/batch/events/batch-events.ts';
import { BatchService } from '../../src/batch/lifecycle/batch-service.ts';
import { textSource, testImporter } from '../support/batch.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { killAllWorkers, remoteEnv, spawnWorker, type WorkerProcess } from '../support/processes.ts';
import { startSandbox, type TestSandbox } from '../support/sandbox.ts';
import { apiKeysEnv } from '../support/keys.ts';

const postgres = testDatabaseKinds().find((kind) => kind.name === 'postgresql');

/**
 * `npm run worker` pays in a process of its own: its claims and upstream calls are counted
 * there, so it serves them itself on METRICS_PORT.
 */
describe.skipIf(postgres === undefined)('metrics of a separate worker process', () => {
  let sb: TestSandbox;
  let test: TestDatabase;
  let worker: WorkerProcess;

  beforeAll(async () => {
    sb = await startSandbox({ inProgressMs: 20 });
    test = await postgres!.create();
    if (!('databaseUrl' in test.target)) throw new Error('a PostgreSQL test database has a URL');
    const databaseUrl = test.target.databaseUrl;
    // Migrated by the test's own connection; the worker finds the schema up to date.
    worker = spawnWorker('worker-metrics', {
      ...remoteEnv(databaseUrl, sb.url),
      GATEWAY_API_KEYS: apiKeysEnv({ ad: 'admin' }),
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => {
    await killAllWorkers();
    await test?.drop();
    await sb?.close();
  });

  it('serves its claim lag and upstream calls on METRICS_PORT', async () => {
    const metricsUrl = await eventually(() => {
      const match = /"metricsUrl":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(worker.logTail(400));
      expect(match, worker.crashReport()).not.toBeNull();
      return match![1]!;
    }, 120_000);

    const batch = await testImporter(sb, test).import({
      source: textSource('provider,amount,account\nbank-card-token,10.00,token_success\n'),
      force: true,
    });
    const batches = new BatchService(test.db.prisma, new BatchEvents(), { singleUser: true });
    await batches.approve(batch.id, { approver: 'test' });
    await eventually(async () => expect((await batches.get(batch.id)).status).toBe('COMPLETED'), 60_000);

    const response = await request(metricsUrl);
    const text = await response.body.text();
    expect(response.statusCode).toBe(200);
    expect(text).toMatch(/^payout_batch_claim_lag_seconds_count [1-9]\d*$/m);
    expect(text).toMatch(/^payout_upstream_requests_total\{endpoint="PUT \/payments\/\{id\}",outcome="ok"\} [1-9]\d*$/m);
  });
});

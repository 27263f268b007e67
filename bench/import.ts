import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startGateway } from '../src/app/start-gateway.ts';
import { loadGatewayConfig } from '../src/config/env.ts';
import { openDatabase } from '../src/db/database.ts';
import { createLogger } from '../src/log/logger.ts';
import { PayoutClient } from '../src/payout/client.ts';
import { createSandbox } from '../src/sandbox/server.ts';
import { ensureDevKeyPair } from '../src/config/keys.ts';
import { readFileSync } from 'node:fs';

/**
 * Import throughput of the batch processor (paying is bench/pay.ts). Prints one line.
 *
 *   npx tsx bench/import.ts --rows 100000 [--database postgres://…]
 */
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    database: { type: 'string' },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'payout-bench-'));
const logger = createLogger({ level: 'silent' });

function generate(rows: number): string {
  const file = join(dir, `payroll-${rows}.csv`);
  spawnSync(process.execPath, ['--import', 'tsx', 'samples/generate-payroll.ts', '--rows', String(rows), '--out', file], { stdio: 'ignore' });
  return file;
}

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

async function run(): Promise<void> {
  const keys = ensureDevKeyPair(dir);
  const sandbox = createSandbox({
    agentId: 'bench',
    apiToken: 'bench-token',
    publicKeyPem: readFileSync(keys.publicKeyFile, 'utf8'),
    webhookSecret: 'bench-secret',
    balance: '999999999999.00',
    inProgressMs: 100,
  });
  const url = await sandbox.listen();
  const client = new PayoutClient({
    baseUrl: url,
    agentId: 'bench',
    apiToken: 'bench-token',
    privateKeyPem: readFileSync(keys.privateKeyFile, 'utf8'),
    connectTimeoutMs: 5_000,
    headersTimeoutMs: 15_000,
    bodyTimeoutMs: 15_000,
    maxRetries: 3,
  });
  const db = await openDatabase(values.database === undefined ? { dataDir: undefined } : { databaseUrl: values.database });
  const gateway = await startGateway(loadGatewayConfig({ PORT: '0', WORKER_IN_PROCESS: 'false', BATCH_MAX_ROWS: '10000000' }), logger, {
    db,
    upstream: { client, webhookSecret: 'bench-secret', close: async () => {} },
  });
  try {
    const rows = Number(values.rows);
    const file = generate(rows);
    peakRss = process.memoryUsage().rss;
    const rssBefore = peakRss;
    const started = performance.now();
    const batch = await gateway.services.importer.import({ source: createReadStream(file), force: true });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `import ${rows} rows (${(statSync(file).size / 1e6).toFixed(1)} MB) on ${db.kind}: ${seconds.toFixed(1)} s, ` +
        `${Math.round(rows / seconds)} rows/s, peak RSS +${((peakRss - rssBefore) / 1e6).toFixed(0)} MB, status ${batch.status}`,
    );
  } finally {
    await gateway.stop();
    await sandbox.close();
    clearInterval(sampler);
    rmSync(dir, { recursive: true, force: true });
  }
}

await run();

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { openRuntime, type Runtime } from '../src/app/runtime.ts';
import { loadGatewayConfig } from '../src/config/env.ts';
import { ensureDevKeyPair } from '../src/config/keys.ts';
import { createLogger } from '../src/log/logger.ts';
import { createSandbox } from '../src/sandbox/server.ts';
import { adminQuery } from './admin-query.ts';
import { benchCredentials as credentials } from './gateway-process.ts';
import { report } from './report.ts';

/**
 * Approval to the first create at the partner (issue 41): a worker asleep (the default
 * WORKER_POLL_MS, 10 s) is woken by the approval's notice. On PGlite one runtime approves and
 * pays (npm start's setup); on PostgreSQL one runtime approves and another one's worker pays,
 * so the notice crosses LISTEN/NOTIFY as between a gateway and a worker process. Ten approvals
 * each; the median beside the target.
 *
 *   npm run bench:wake -- [--runs 10] [--admin-url postgres://…]
 */
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    'admin-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const runs = Number(values.runs);
const adminUrl = values['admin-url']!;
const TARGET_MS = 200;
const dir = mkdtempSync(join(tmpdir(), 'payout-bench-wake-'));
const keys = ensureDevKeyPair(dir);

async function main(): Promise<void> {
  const sandbox = createSandbox({
    agentId: credentials.PAYOUT_AGENT_ID,
    apiToken: credentials.PAYOUT_API_TOKEN,
    publicKeyPem: readFileSync(keys.publicKeyFile, 'utf8'),
    webhookSecret: credentials.PAYOUT_WEBHOOK_SECRET,
    balance: '999999999.00',
  });
  const url = await sandbox.listen();
  try {
    for (const database of ['pglite', 'postgresql'] as const) {
      const times = await approvals(database, url, sandbox);
      const sorted = [...times].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      console.log(
        `${database}: approval to the first create, ${runs} approvals: median ${median.toFixed(0)} ms (min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)}); load ${loadavg()[0]!.toFixed(2)}`,
      );
      report({
        bench: 'wake',
        name: 'approval to the first create at the partner, median',
        value: Math.round(median),
        unit: 'ms',
        target: `≤ ${TARGET_MS}`,
        met: median <= TARGET_MS,
        detail: `${database === 'pglite' ? 'PGlite, worker in process' : 'PostgreSQL, the worker in another runtime (LISTEN/NOTIFY)'}; WORKER_POLL_MS 10000; ${runs} approvals, min ${Math.round(sorted[0]!)} ms, max ${Math.round(sorted.at(-1)!)} ms`,
      });
    }
  } finally {
    await sandbox.close();
  }
}

async function approvals(
  database: 'pglite' | 'postgresql',
  sandboxUrl: string,
  sandbox: ReturnType<typeof createSandbox>,
): Promise<number[]> {
  const dbName = `payout_bench_wake_${process.pid}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  if (database === 'postgresql') await adminQuery(adminUrl, `CREATE DATABASE "${dbName}"`);
  const config = loadGatewayConfig({
    ...credentials,
    PAYOUT_API_URL: sandboxUrl,
    PAYOUT_PRIVATE_KEY_FILE: keys.privateKeyFile,
    PAYOUT_DATA_KEY: randomBytes(32).toString('base64'),
    GATEWAY_API_KEYS: `${randomBytes(32).toString('hex')}:admin`,
    ...(database === 'postgresql' ? { DATABASE_URL: dbUrl.toString() } : { DATA_DIR: join(dir, 'pglite') }),
  });
  const logger = createLogger({ level: 'silent' });
  const opened: Runtime[] = [];
  try {
    const gateway = await openRuntime(config, logger);
    opened.push(gateway);
    const payer = database === 'postgresql' ? await openRuntime(config, logger) : gateway;
    if (payer !== gateway) opened.push(payer);
    payer.worker.start();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const csv = `provider,amount,account\nbank-card-token,${100 + i}.${String(i).padStart(2, '0')},token_success\n`;
      const batch = await gateway.services.importer.import({ source: Readable.from([Buffer.from(csv)]), force: true });
      // The worker has swept after the last batch and sleeps until its safety poll.
      while (!payer.worker.waiting) await new Promise((resolve) => setTimeout(resolve, 5));
      const creates = sandbox.testFeatures.calls().byKind.create;
      const started = performance.now();
      await gateway.services.batches.approve(batch.id, { approver: 'bench' });
      while (sandbox.testFeatures.calls().byKind.create === creates) await new Promise((resolve) => setImmediate(resolve));
      times.push(performance.now() - started);
      while ((await gateway.services.batches.get(batch.id)).status === 'RUNNING') await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return times;
  } finally {
    for (const runtime of opened.reverse()) await runtime.close();
    if (database === 'postgresql') await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { describeFaultSuite } from '../support/fault-rig.ts';
import { freePort, GatewayProcess } from '../support/gateway-process.ts';

/**
 * Issue 18, finding 7: a gateway killed (SIGKILL) in the middle of importing a 200,000-row
 * file left its batch VALIDATING for 30 minutes, not cancellable, its file refused as
 * "still being validated". The import now beats a heartbeat; a gateway started after the
 * crash rejects the dead import once the heartbeat is IMPORT_STALE_MS old, and the same
 * file imports again. The figure asserted is the outcome, not the time it took.
 */
const IMPORT =
  'mutation($file: File!) { importBatch(file: $file) { __typename ... on ImportBatchSuccess { batch { id status rowCount } } } }';
const ROWS = 200_000;

function payrollText(rows: number): string {
  const lines = ['reference,provider,amount,account'];
  for (let i = 0; i < rows; i++) lines.push(`C-${i},bank-card-token,${(i % 900) + 100}.00,token_success`);
  return `${lines.join('\n')}\n`;
}

/**
 * importBatch of `text`, its multipart body written by hand and streamed in parts (not
 * test/support/batch-graphql.ts's form): the gateway is killed while it reads one.
 */
function uploadStreamed(url: string, text: string) {
  const boundary = 'crash-boundary';
  const field = (name: string, value: string) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = `${field('operations', JSON.stringify({ query: IMPORT, variables: { file: null } }))}${field('map', JSON.stringify({ 0: ['variables.file'] }))}--${boundary}\r\ncontent-disposition: form-data; name="0"; filename="payroll.csv"\r\ncontent-type: text/csv\r\n\r\n`;
  return request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-graphql-yoga-csrf': '1' },
    body: Readable.from([Buffer.from(head), Buffer.from(text), Buffer.from(`\r\n--${boundary}--\r\n`)]),
  });
}

describeFaultSuite('fault suite: a gateway killed during an import', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'import-crash-'));
  let test: TestDatabase | undefined;
  const gateways: GatewayProcess[] = [];
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.kill()));
    await test?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(name: string) {
    const env = {
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      DATABASE_URL: (test!.target as { databaseUrl: string }).databaseUrl,
      IMPORT_STALE_MS: '3000',
      LOG_LEVEL: 'info',
    };
    const gateway = GatewayProcess.spawn(name, env);
    gateways.push(gateway);
    return { gateway, url: await gateway.ready };
  }

  it('rejects the dead import within the stale time, frees its file, and never pays its rows', async () => {
    test = await testDatabaseKinds()
      .find((kind) => kind.name === 'postgresql')!
      .create();
    const prisma = test.db.prisma;
    const text = payrollText(ROWS);

    const first = await start('importing gateway');
    const pending = uploadStreamed(first.url, text).catch(() => undefined);
    // Killed once the import has written rows: mid-file, holding its file key.
    const batch = await eventually(async () => {
      const found = await prisma.batch.findFirstOrThrow({ where: { status: 'VALIDATING' } });
      expect(await prisma.batchItem.count({ where: { batchId: found.id } })).toBeGreaterThan(0);
      return found;
    }, 120_000);
    await first.gateway.kill();
    await pending;
    const killedAt = Date.now();
    expect((await prisma.batch.findUniqueOrThrow({ where: { id: batch.id } })).status).toBe('VALIDATING');

    const second = await start('gateway after the crash');
    const rejected = await eventually(async () => {
      const now = await prisma.batch.findUniqueOrThrow({ where: { id: batch.id } });
      expect(now.status).toBe('REJECTED');
      return now;
    }, 120_000);
    console.log(`dead import rejected ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill (IMPORT_STALE_MS=3000)`);
    expect(rejected.fileKey).toBeNull();
    expect(await prisma.batchProblem.findMany({ where: { batchId: batch.id, code: 'import.interrupted' } })).toHaveLength(1);

    const again = await uploadStreamed(second.url, text);
    const reply = (await again.body.json()) as { data: { importBatch: { batch: { status: string; rowCount: number } } } };
    expect(reply.data.importBatch.batch).toMatchObject({ status: 'VALIDATED', rowCount: ROWS });
    // Nothing of the dead import was sent: its rows were never approvable.
    expect(await prisma.payment.count({ where: { batchId: batch.id } })).toBe(0);
  });
});

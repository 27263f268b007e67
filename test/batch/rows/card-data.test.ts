import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvChunks, problemRows, resultRows } from '../../../src/batch/export/batch-export.ts';
import { CardDataVault, SEALED } from '../../../src/batch/card-data.ts';
import { DataKeyring, dataKeyFrom } from '../../../src/crypto/data-keys.ts';
import { protectLegacyRows } from '../../../src/batch/rows/sql/protect-legacy-rows.ts';
import { scrubCardData } from '../../../src/batch/rows/sql/scrub-card-data.ts';
import { BatchWorker } from '../../../src/batch/pay/batch-worker.ts';
import { openDatabase } from '../../../src/db/database.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { testWorker, textSource } from '../../support/batch.ts';
import { cardNumbersFound, TEST_PANS, testCardData } from '../../support/card-data.ts';
import { testDatabaseKinds, type TestDatabaseKind } from '../../support/database.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

/** Any card number in any text or JSON column of any table of the database. */
async function scanDatabase(gw: TestGateway): Promise<string[]> {
  const columns = await gw.db.query<{ table: string; column: string }>(
    `SELECT table_name AS table, column_name AS column FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations' AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`,
    [],
  );
  expect(columns.length).toBeGreaterThan(20);
  const findings: string[] = [];
  for (const { table, column } of columns) {
    const rows = await gw.db.query<{ v: string }>(`SELECT "${column}"::text AS v FROM "${table}" WHERE "${column}" IS NOT NULL`, []);
    for (const { v } of rows)
      for (const pan of cardNumbersFound(v)) findings.push(`${table}.${column}: ${pan.slice(0, 4)}…${pan.slice(-4)}`);
  }
  return findings;
}

const csv = [
  'reference,provider,amount,pan,account,cardholder_name,cardholder_lastname,lastName,firstName',
  'R1,bank-card-russia,101.00,4111 1111 1111 1111,,IVAN,IVANOV,,', // spaced: paid
  'R2,bank-card-russia,102.00,5555555555554444,,ANNA,PETROVA,,', // paid
  'R3,bank-card-russia-fio,103.00,2200 0000 0000 0004,,,,Sidorov,Oleg', // paid
  'R4,bank-card-russia,104.00,2200000000000012,,OLGA,ORLOVA,,', // FAILED at create
  'R5,bank-card-russia,105.00,2200-0000-0000-0020,,PETR,PETROV,,', // FAILED at execute (dashes removed, with a warning)
  'R6,bank-card-russia,106.00,2200000000000020,,PETR,PETROV,,', // FAILED at execute
  'R7,bank-card-russia,107.00,2200000000000038,,IRINA,ILINA,,', // IN_PROGRESS, then COMPLETED
  'R1,bank-card-russia,109.00,4276380012345679,,BAD,DUPLICATE,,', // INVALID (reference.duplicate), stored
  'R9,bank-card-token,108.00,,token_success,,,,',
].join('\n');

/** A PGlite database on disk, so its files can be searched too. */
function diskPglite(dirs: string[]): TestDatabaseKind {
  return {
    name: 'pglite',
    async create() {
      const dir = await mkdtemp(join(tmpdir(), 'card-data-'));
      dirs.push(dir);
      const db = await openDatabase({ dataDir: dir });
      return { db, target: { dataDir: undefined }, drop: () => db.close() };
    },
  };
}

const diskDirs: string[] = [];
const kinds: Array<{ label: string; kind: TestDatabaseKind; disk: boolean }> = [
  ...testDatabaseKinds().map((kind) => ({ label: kind.name, kind, disk: false })),
  { label: 'pglite on disk', kind: diskPglite(diskDirs), disk: true },
];

describe('the scan for card numbers', () => {
  // Issue 27: a sandbox transactionId whose leading groups are digits failed 4 tests at random.
  it('reports the test cards however written, and not a UUID whose leading groups are digits', () => {
    const uuid = '48008140-6649-28ab-9c3d-0123456789ab';
    expect(cardNumbersFound(`{"transactionId":"${uuid}"}`)).toEqual([]);
    expect(cardNumbersFound(`tx ${uuid}; card 2200 0000 0000 0004, ref4111111111111111x`)).toEqual([
      '2200000000000004',
      '4111111111111111',
    ]);
  });
});

describe.each(kinds)('card data at rest on $label', ({ kind, disk }) => {
  let gw: TestGateway;
  let closed = false;
  const logLines: string[] = [];
  beforeAll(async () => {
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false' }, sandbox: { inProgressMs: 50 }, database: kind });
  });
  afterAll(async () => {
    if (!closed) await gw.close();
    for (const dir of diskDirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  /** Card numbers in the worker's log lines, but for pino's `time` (milliseconds: 13 digits, a Luhn pass one time in ten). */
  const loggedCardNumbers = () =>
    logLines.flatMap((line) => {
      const { time: _, ...record } = JSON.parse(line) as Record<string, unknown>;
      return cardNumbersFound(JSON.stringify(record));
    });
  const db = () => gw.db.prisma;
  /** A worker that logs everything (trace) into `logLines`, to search them too. */
  function worker(cardData = testCardData()): BatchWorker {
    const s = gw.services();
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    return testWorker(gw, {}, `${gw.gateway.url}/webhooks/payout`, { cardData, logger: createLogger({ level: 'trace' }, sink) });
  }
  const ended = (batchId: string) => async () => {
    const batch = await db().batch.findUniqueOrThrow({ where: { id: batchId } });
    return !['RUNNING', 'VALIDATED'].includes(batch.status);
  };
  const sealedLines = async (batchId: string) =>
    (await db().batchItem.findMany({ where: { batchId }, orderBy: { line: 'asc' } }))
      .filter((item) => (item.fields as Record<string, unknown>)[SEALED] !== undefined)
      .map((item) => item.line);

  let batchId: string;

  it('stores payable rows sealed (AES-256-GCM, key id) with the masked fields beside, and invalid rows masked only', async () => {
    const batch = await gw.services().importer.import({ source: textSource(csv), force: true });
    batchId = batch.id;
    expect(batch.status).toBe('REJECTED'); // the second R1 is invalid
    const items = await db().batchItem.findMany({ where: { batchId }, orderBy: { line: 'asc' } });
    const r1 = items.find((i) => i.reference === 'R1')!;
    expect(r1.fields).toMatchObject({
      pan: '4111********1111',
      cardholder_name: 'IVAN',
      [SEALED]: { v: 1, kid: testCardData().keyring.current.id, iv: expect.any(String), tag: expect.any(String), ct: expect.any(String) },
    });
    expect(testCardData().open(r1.fields, { batchId, line: r1.line })).toEqual({
      pan: '4111111111111111',
      cardholder_name: 'IVAN',
      cardholder_lastname: 'IVANOV',
    });
    // Bound to its row: the same envelope does not open as another row's.
    expect(() => testCardData().open(r1.fields, { batchId, line: r1.line + 1 })).toThrow(/does not authenticate/);
    const invalid = items.find((i) => i.status === 'INVALID')!;
    expect(invalid.fields).toEqual({ pan: '4276********5679', cardholder_name: 'BAD', cardholder_lastname: 'DUPLICATE' });
    expect(await scanDatabase(gw)).toEqual([]);
  });

  it('pays the valid rows, then keeps card data only for FAILED rows, which can be paid again', async () => {
    await gw.services().batches.approve(batchId, { approver: 'anonymous', validRowsOnly: true });
    await worker().drain(ended(batchId));
    const items = await db().batchItem.findMany({ where: { batchId }, orderBy: { line: 'asc' } });
    expect(items.map((i) => `${i.reference}:${i.status}`)).toEqual([
      'R1:COMPLETED',
      'R2:COMPLETED',
      'R3:COMPLETED',
      'R4:FAILED',
      'R5:FAILED',
      'R6:FAILED',
      'R7:COMPLETED',
      'R1:INVALID',
      'R9:COMPLETED',
    ]);
    expect((await db().batch.findUniqueOrThrow({ where: { id: batchId } })).status).toBe('COMPLETED_WITH_FAILURES');
    const failedLines = items.filter((i) => i.status === 'FAILED').map((i) => i.line);
    expect(await sealedLines(batchId)).toEqual(failedLines);
    // What was sent is the full card number (the sandbox decides by it), what is kept is masked.
    const r1 = items[0]!;
    expect(await gw.services().tracker.find(r1.paymentId)).toMatchObject({ status: 'COMPLETED', recipient: { pan: '4111********1111' } });

    // FAILED rows are paid again from their sealed data (and fail again: the sandbox's failing cards).
    await gw.services().batches.retryFailed(batchId);
    await worker().drain(ended(batchId));
    const retried = await db().batchItem.findMany({ where: { batchId, status: 'FAILED' }, orderBy: { line: 'asc' } });
    expect(retried.map((i) => `${i.reference}:${i.attempt}:${i.errorCode}`)).toEqual([
      'R4:2:BILLING_DECLINED',
      'R5:2:BILLING_DECLINED',
      'R6:2:BILLING_DECLINED',
    ]);
    for (const item of retried) expect((await gw.sb.effects(item.paymentId)).creates).toBe(1);

    expect(await scanDatabase(gw)).toEqual([]);
    expect(loggedCardNumbers()).toEqual([]);
  });

  it('exports and shows only masked recipients', async () => {
    let results = '';
    for await (const chunk of csvChunks(resultRows(db(), batchId))) results += chunk;
    let problems = '';
    for await (const chunk of csvChunks(problemRows(db(), batchId))) problems += chunk;
    expect(results).toContain('pan=4111********1111; cardholder_name=IVAN; cardholder_lastname=IVANOV');
    expect(results).not.toContain(SEALED);
    expect(cardNumbersFound(results)).toEqual([]);
    expect(cardNumbersFound(problems)).toEqual([]);
    const reply = await gw.gql(
      `query($id: ID!) { batch(id: $id) { items(first: 20) { edges { node { reference recipient { key value } } } } } }`,
      { id: batchId },
    );
    const nodes = reply.body.data.batch.items.edges.map((e: any) => e.node);
    expect(nodes.find((n: any) => n.reference === 'R4').recipient).toEqual([
      { key: 'pan', value: '2200********0012' },
      { key: 'cardholder_name', value: 'OLGA' },
      { key: 'cardholder_lastname', value: 'ORLOVA' },
    ]);
    expect(cardNumbersFound(JSON.stringify(reply.body))).toEqual([]);
  });

  it('drops FAILED rows’ card data after the retention period; they cannot be paid again then, nor are offered', async () => {
    const actions = async () => gw.services().batches.actions(await db().batch.findUniqueOrThrow({ where: { id: batchId } }));
    expect(await actions()).toContain('retry');
    await db().batchItem.updateMany({ where: { batchId, status: 'FAILED' }, data: { finishedAt: new Date(Date.now() - 31 * 86_400_000) } });
    expect(await scrubCardData(gw.db.query, { batchIds: null, retentionDays: 31.5 })).toEqual([]);
    expect(await scrubCardData(gw.db.query, { batchIds: null, retentionDays: 30 })).toEqual([batchId]);
    expect(await sealedLines(batchId)).toEqual([]);
    await expect(gw.services().batches.retryFailed(batchId)).rejects.toMatchObject({ code: 'batch.nothing-to-retry' });
    // Batch.actions asks the retry's own predicate: the page and the CLI offer no retry that would be refused.
    expect(await actions()).not.toContain('retry');
  });

  it('drops card data when a batch is cancelled, and of a file that cannot be approved', async () => {
    const batch = await gw.services().importer.import({ source: textSource(`${csv.split('\n').slice(0, 4).join('\n')}\n`), force: true });
    expect(batch.status).toBe('VALIDATED');
    expect((await sealedLines(batch.id)).length).toBe(3);
    await gw.services().batches.cancel(batch.id);
    expect(await sealedLines(batch.id)).toEqual([]);

    // A quote inside an unquoted card cell: a csv.syntax problem that must not quote the number.
    const broken = await gw.services().importer.import({
      source: textSource(
        'provider,amount,pan,cardholder_name\nbank-card-russia,10.00,4111111111111111,A\nbank-card-russia,11.00,4276380012345679"x,B\n',
      ),
      force: true,
    });
    expect(broken).toMatchObject({ status: 'REJECTED', validCount: 0 });
    expect(await sealedLines(broken.id)).toEqual([]);
    expect(await scanDatabase(gw)).toEqual([]);
  });

  it('never sends a row it cannot open: under an unknown key it waits, with its data gone it fails', async () => {
    const batch = await gw.services().importer.import({ source: textSource(`${csv.split('\n').slice(0, 2).join('\n')}\n`), force: true });
    // The same rows were paid by an earlier test: this one pays them again on purpose.
    await gw.services().batches.approve(batch.id, { approver: 'anonymous', includeHeld: true });
    const row = async () => db().batchItem.findFirstOrThrow({ where: { batchId: batch.id } });
    const stranger = new CardDataVault(new DataKeyring(dataKeyFrom(randomBytes(32))), 30);
    await worker(stranger).drain(async () => (await row()).errorCode === 'card-data.unknown-key');
    const waiting = await row();
    expect(waiting).toMatchObject({ status: 'PENDING', errorMessage: expect.stringMatching(/PAYOUT_DATA_KEYS_OLD/) });
    expect(waiting.notBefore!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect((waiting.fields as Record<string, unknown>)[SEALED]).toBeDefined();
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${waiting.paymentId}`)).status).toBe(404); // never called

    await gw.db.query(`UPDATE "BatchItem" SET fields = fields - '$sealed'::text, "notBefore" = NULL WHERE id = $1`, [waiting.id]);
    await worker().drain(ended(batch.id));
    expect(await row()).toMatchObject({ status: 'FAILED', errorCode: 'card-data.missing' });
    expect((await gw.sb.raw('GET', `/_sandbox/payments/${waiting.paymentId}`)).status).toBe(404); // never called
    expect(loggedCardNumbers()).toEqual([]);
  });

  it('seals or masks rows an earlier version stored in clear, and still pays them meanwhile', async () => {
    const batch = await gw.services().importer.import({ source: textSource(`${csv.split('\n').slice(0, 3).join('\n')}\n`), force: true });
    const [first, second] = await db().batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    const done = await db().batchItem.findFirstOrThrow({ where: { batchId, status: 'COMPLETED' } });
    // Not one of TEST_PANS: written in clear here on purpose, it may linger in old row versions of the files.
    const clear = { pan: '4000056655665556', cardholder_name: 'ANNA', cardholder_lastname: 'PETROVA' };
    for (const id of [first!.id, second!.id, done.id]) await db().batchItem.update({ where: { id }, data: { fields: clear } });
    // Before the sweep: the worker reads the clear row as it is.
    expect(testCardData().open(clear, { batchId: batch.id, line: first!.line })).toEqual(clear);
    expect(await protectLegacyRows(gw.db.query, testCardData())).toBe(3);
    expect(await protectLegacyRows(gw.db.query, testCardData())).toBe(0);
    const sealed = await db().batchItem.findUniqueOrThrow({ where: { id: second!.id } });
    expect(testCardData().open(sealed.fields, { batchId: batch.id, line: sealed.line })).toEqual(clear);
    expect((await db().batchItem.findUniqueOrThrow({ where: { id: done.id } })).fields).toEqual({ ...clear, pan: '4000********5556' });
    await gw.services().batches.approve(batch.id, { approver: 'anonymous', includeHeld: true });
    await worker().drain(ended(batch.id));
    expect((await db().batch.findUniqueOrThrow({ where: { id: batch.id } })).status).toBe('COMPLETED');
    expect(await sealedLines(batch.id)).toEqual([]);
    expect(await scanDatabase(gw)).toEqual([]);
  });

  it('leaves no card number in the database files', async () => {
    if (!disk) return;
    await gw.close();
    closed = true;
    const found: string[] = [];
    async function search(dir: string): Promise<void> {
      for (const entry of await readdir(dir)) {
        const path = join(dir, entry);
        if ((await stat(path)).isDirectory()) await search(path);
        else {
          const bytes = await readFile(path);
          for (const pan of TEST_PANS) {
            const spaced = pan.replace(/(\d{4})(?=\d)/g, '$1 ');
            if (bytes.includes(pan) || bytes.includes(spaced)) found.push(`${path}: ${pan.slice(0, 4)}…`);
          }
        }
      }
    }
    for (const dir of diskDirs) await search(dir);
    expect(found).toEqual([]);
  });
});

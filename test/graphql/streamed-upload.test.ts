import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { freePort, GatewayProcess } from '../support/gateway-process.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey } from '../support/keys.ts';
import { memoryOf } from '../support/process-memory.ts';

const MiB = 1024 * 1024;
const MAX_FILE_BYTES = 40 * MiB;
const KEY = apiKey('upload');

// Temp files of this test process only: uploads are spooled under os.tmpdir().
const spool = mkdtempSync(join(tmpdir(), 'streamed-upload-test-'));
process.env.TMPDIR = spool;
const leftovers = () => readdirSync(spool).filter((name) => name.startsWith('payout-upload-'));
/** Removed once the response is sent, or once a part cut short has ended: waited for, not assumed. */
const noTempFiles = () => eventually(() => expect(leftovers()).toEqual([]));

const IMPORT =
  'mutation($file: File!) { importBatch(file: $file, force: true) { __typename ... on ImportBatchSuccess { batch { id status rowCount validCount problems { code } } } } }';

/** The multipart envelope around one streamed file, as the GraphQL multipart request spec orders it. */
function multipartBody(
  boundary: string,
  file: AsyncIterable<Buffer>,
  parts: { operations?: boolean; map?: string; fileField?: string } = {},
): AsyncIterable<Buffer> {
  const field = (name: string, value: string) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head =
    (parts.operations === false ? '' : field('operations', JSON.stringify({ query: IMPORT, variables: { file: null } }))) +
    (parts.map === undefined ? field('map', JSON.stringify({ 0: ['variables.file'] })) : parts.map === '' ? '' : field('map', parts.map)) +
    `--${boundary}\r\ncontent-disposition: form-data; name="${parts.fileField ?? '0'}"; filename="payroll.csv"\r\ncontent-type: text/csv\r\n\r\n`;
  return (async function* () {
    yield Buffer.from(head);
    yield* file;
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  })();
}

/** A valid payroll of `bytes` or a little more: token rows of 1.00, each with a 1 KB custom note. */
async function* payroll(bytes: number): AsyncGenerator<Buffer> {
  yield Buffer.from('reference,provider,amount,account,custom.note\n');
  const note = 'n'.repeat(1000);
  for (let sent = 0, i = 0; sent < bytes;) {
    const rows: string[] = [];
    for (let j = 0; j < 200; j++, i++) rows.push(`R-${i},bank-card-token,1.00,token_${i},${note}\n`);
    const chunk = Buffer.from(rows.join(''));
    sent += chunk.length;
    yield chunk;
  }
}

/** `bytes` of a file that is not a payroll: the importer stores it whole, then refuses its header. */
async function* junk(bytes: number): AsyncGenerator<Buffer> {
  yield Buffer.from('not,a,payroll\n');
  const piece = Buffer.alloc(64 * 1024, 'a,b,c\n');
  for (let sent = 0; sent < bytes; sent += piece.length) yield piece;
}

async function post(url: string, body: AsyncIterable<Buffer>, boundary: string, key = KEY) {
  const response = await request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-graphql-yoga-csrf': '1', authorization: `Bearer ${key}` },
    body: Readable.from(body),
    // A connection the server stopped reading is not reused.
    reset: true,
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    body: JSON.parse(text) as { data?: any; errors?: Array<{ message: string; extensions: Record<string, unknown> }> },
  };
}

describe('streamed uploads', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { BATCH_MAX_FILE_BYTES: String(MAX_FILE_BYTES), GATEWAY_API_KEYS: `${KEY}:admin` } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('imports a 30 MB payroll, over yoga’s hidden 25,000,000-byte cap, and removes its temp files', async () => {
    const reply = await post(gw.gateway.url, multipartBody('b30', payroll(30_000_000)), 'b30');
    expect(reply.status).toBe(200);
    const batch = reply.body.data.importBatch.batch;
    expect(batch).toMatchObject({ status: 'VALIDATED', problems: [] });
    expect(batch.rowCount).toBeGreaterThan(28_000);
    expect(batch.validCount).toBe(batch.rowCount);
    await noTempFiles();
  });

  it('refuses an upload over BATCH_MAX_FILE_BYTES plus the envelope with 413, counting the bytes read, and keeps no temp file', async () => {
    const reply = await post(gw.gateway.url, multipartBody('bover', junk(MAX_FILE_BYTES + 256 * 1024)), 'bover');
    expect(reply.status).toBe(413);
    expect(reply.body.errors![0]!.extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limitBytes: MAX_FILE_BYTES + 64 * 1024 });
    await noTempFiles();
  });

  it('refuses a request without its map, or whose map names a file not sent, with 400 and a code', async () => {
    const noMap = await post(gw.gateway.url, multipartBody('bnomap', junk(1000), { map: '' }), 'bnomap');
    expect(noMap.status).toBe(400);
    expect(noMap.body.errors![0]).toMatchObject({
      extensions: { code: 'BAD_MULTIPART_REQUEST' },
      message: expect.stringMatching(/"map" must come before the files/),
    });

    const noFile = await post(gw.gateway.url, multipartBody('bnofile', junk(1000), { fileField: 'other' }), 'bnofile');
    expect(noFile.status).toBe(400);
    expect(noFile.body.errors![0]).toMatchObject({
      extensions: { code: 'BAD_MULTIPART_REQUEST' },
      message: expect.stringMatching(/names file "0".*no such file part/),
    });

    const noOperations = await post(gw.gateway.url, multipartBody('bnoops', junk(1000), { operations: false }), 'bnoops');
    expect(noOperations.status).toBe(400);
    expect(noOperations.body.errors![0]!.extensions.code).toBe('BAD_MULTIPART_REQUEST');

    const badMap = await post(gw.gateway.url, multipartBody('bbadmap', junk(1000), { map: '{"0": "variables.file"}' }), 'bbadmap');
    expect(badMap.status).toBe(400);
    expect(badMap.body.errors![0]!.extensions.code).toBe('BAD_MULTIPART_REQUEST');
    await noTempFiles();
  });

  it('refuses an upload without a known API key before storing it', async () => {
    const reply = await post(gw.gateway.url, multipartBody('bkey', junk(1_000_000)), 'bkey', 'wrong-key');
    expect(reply.status).toBe(401);
    expect(reply.body.errors![0]!.extensions.code).toBe('UNAUTHENTICATED');
    await noTempFiles();
  });
});

describe('memory of an upload', () => {
  let gateway: GatewayProcess;
  let url: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'streamed-upload-data-'));
  beforeAll(async () => {
    const port = await freePort();
    gateway = GatewayProcess.spawn('gateway', {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      TMPDIR: spool,
      GATEWAY_API_KEYS: `${KEY}:admin`,
      BATCH_MAX_FILE_BYTES: String(100 * MiB),
      WORKER_IN_PROCESS: 'false',
      LOG_LEVEL: 'info',
    });
    url = await gateway.ready;
  });
  afterAll(async () => {
    await gateway?.kill();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(spool, { recursive: true, force: true });
  });

  it('grows the gateway’s peak resident memory by far less than the file', async () => {
    // Everything an upload loads is loaded before measuring.
    expect((await post(url, multipartBody('bwarm', junk(1_000_000)), 'bwarm')).status).toBe(200);
    // Linux: writing 5 to clear_refs resets the peak (VmHWM) to the memory in use now.
    writeFileSync(`/proc/${gateway.pid}/clear_refs`, '5');
    const before = memoryOf(gateway.pid);
    const size = 60 * MiB;
    const reply = await post(url, multipartBody('bbig', junk(size)), 'bbig');
    expect(reply.status).toBe(200);
    // Stored whole, then refused at its header: the file went all the way through.
    expect(reply.body.data.importBatch.batch.problems.map((p: { code: string }) => p.code)).toContain('column.unknown');
    const growth = memoryOf(gateway.pid).peak - before.rss;
    // Holding the file would grow the peak by the whole 60 MiB. What streaming leaves is the
    // garbage of its chunks until the collector runs, which a loaded machine delays: a CI run
    // at load 5 measured +37 MiB (+44.7 in the XLSX test), so the bound is three quarters, not half.
    expect(growth).toBeLessThan((size * 3) / 4);
    await noTempFiles();
  });
});

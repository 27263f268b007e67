import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_GRAPHQL_BODY_BYTES } from '../../src/graphql/body-limits.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const MiB = 1024 * 1024;
/** Small enough to send quickly, large enough that yoga's hidden 25,000,000-byte cap would refuse 30 MB. */
const MAX_FILE_BYTES = 40 * MiB;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { BATCH_MAX_FILE_BYTES: String(MAX_FILE_BYTES) } });
});
afterAll(() => gw.close());

/** `total` bytes of `fill` in 64 KiB pieces: a body undici sends chunked, with no Content-Length. */
async function* repeated(total: number, fill = 'x', prefix = '', suffix = ''): AsyncGenerator<Buffer> {
  yield Buffer.from(prefix);
  const piece = Buffer.from(fill.repeat(Math.ceil((64 * 1024) / fill.length)));
  for (let sent = 0; sent < total; sent += piece.length) yield piece.subarray(0, Math.min(piece.length, total - sent));
  yield Buffer.from(suffix);
}

async function post(body: AsyncIterable<Buffer> | string, headers: Record<string, string>) {
  // A fresh connection each time: one the server gave up reading mid-body is not reused.
  const payload = typeof body === 'string' ? body : Readable.from(body);
  const response = await request(`${gw.gateway.url}/graphql`, { method: 'POST', headers, body: payload, reset: true });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text };
}

/** A GraphQL multipart request (importBatch) whose file part is streamed, chunked. */
function uploadBody(fileBytes: number, boundary: string): AsyncIterable<Buffer> {
  const part = (name: string, value: string) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const operations = JSON.stringify({
    query:
      'mutation($file: File!) { importBatch(file: $file, force: true) { __typename ... on ImportBatchSuccess { batch { id status problems { code } } } } }',
    variables: { file: null },
  });
  const head =
    part('operations', operations) +
    part('map', JSON.stringify({ 0: ['variables.file'] })) +
    `--${boundary}\r\ncontent-disposition: form-data; name="0"; filename="big.csv"\r\ncontent-type: text/csv\r\n\r\n`;
  // Not a payroll file: the importer spools it all, then rejects it at its header, which is all this needs.
  return repeated(fileBytes, 'a,b\n', `${head}not,a,payroll,header\n`, `\r\n--${boundary}--\r\n`);
}

const multipart = (boundary: string) => ({ 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-graphql-yoga-csrf': '1' });

describe('GraphQL body limit', () => {
  it('refuses a 3 MB JSON body sent chunked, counting the bytes read, with 413 naming the limit', async () => {
    const reply = await post(repeated(3_000_000, ' ', '{"query": "{ balance { available { value } } }"', '}'), {
      'content-type': 'application/json',
    });
    expect(reply.status).toBe(413);
    expect(reply.headers['content-type']).toMatch(/json/);
    const error = JSON.parse(reply.text).errors[0];
    expect(error.extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limitBytes: MAX_GRAPHQL_BODY_BYTES });
    expect(error.message).toContain(String(MAX_GRAPHQL_BODY_BYTES));
  });

  it('refuses a body over the limit with an honest Content-Length before reading it', async () => {
    const body = JSON.stringify({ query: `{ balance { available { value } } } # ${'x'.repeat(MAX_GRAPHQL_BODY_BYTES)}` });
    const reply = await post(body, { 'content-type': 'application/json' });
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.text).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('serves a chunked body under the limit', async () => {
    const reply = await post(repeated(500_000, ' ', '{"query": "{ balance { available { value } } }"', '}'), {
      'content-type': 'application/json',
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).data.balance.available.value).toMatch(/^\d+\.\d{2}$/);
  });

  it('holds the same limit for a document sent as application/graphql', async () => {
    const reply = await post(repeated(2 * MiB, ' ', '{ balance { available { value } } }'), { 'content-type': 'application/graphql' });
    expect(reply.status).toBe(413);
  });
});

describe('upload limit', () => {
  it('takes a 30 MB file, over yoga’s 25,000,000-byte default, through to the importer', async () => {
    const reply = await post(uploadBody(30_000_000, 'b30mb'), multipart('b30mb'));
    expect(reply.status).toBe(200);
    const result = JSON.parse(reply.text).data.importBatch;
    expect(result.__typename).toBe('ImportBatchSuccess');
    expect(result.batch.status).toBe('REJECTED');
  });

  it('refuses a chunked upload over BATCH_MAX_FILE_BYTES plus the envelope with 413 naming the limit', async () => {
    const reply = await post(uploadBody(MAX_FILE_BYTES + 128 * 1024, 'bover'), multipart('bover'));
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.text).errors[0].extensions).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      limitBytes: MAX_FILE_BYTES + 64 * 1024,
    });
  });
});

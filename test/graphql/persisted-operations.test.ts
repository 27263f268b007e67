import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import codegenConfig from '../../web/codegen.ts';
import { schema } from '../../src/graphql/schema.ts';
import { PAGE_DOCUMENTS, PersistedDocuments, usePersistedOperationsWith } from '../../src/graphql/persisted-operations.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const root = new URL('../../', import.meta.url).pathname;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Reply {
  status: number;
  body: { data?: any; errors?: Array<{ message: string; extensions?: Record<string, any> }> };
}

async function post(gw: TestGateway, body: Record<string, unknown>, accept = 'application/graphql-response+json'): Promise<Reply> {
  const response = await request(`${gw.gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Reply['body'] };
}

async function get(gw: TestGateway, search: Record<string, string>): Promise<Reply> {
  const response = await request(`${gw.gateway.url}/graphql?${new URLSearchParams(search)}`, {
    headers: { accept: 'application/graphql-response+json', 'x-graphql-yoga-csrf': '1' },
  });
  return { status: response.statusCode, body: (await response.body.json()) as Reply['body'] };
}

const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

/** The id of one of the page's operations in the committed manifest, by its name. */
function pageDocumentId(operation: string): string {
  const found = Object.entries(PAGE_DOCUMENTS).find(([, text]) => new RegExp(`^(query|mutation|subscription) ${operation}\\b`).test(text));
  if (found === undefined) throw new Error(`no ${operation} in the page's manifest`);
  return found[0];
}

describe('persisted operations, open mode (the default)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { GATEWAY_APQ_CACHE_SIZE: '2' } });
  });
  afterAll(() => gw.close());

  it('APQ: an unknown hash answers PERSISTED_QUERY_NOT_FOUND, the query with its hash registers it, then the hash alone runs it', async () => {
    const query = 'query ApqBalance { balance { available { value currency } } }';
    const hash = sha256(query);
    const unknown = await post(gw, { extensions: apq(hash) });
    // 200, as Apollo Server answers it.
    expect(unknown.status).toBe(200);
    expect(unknown.body.errors).toEqual([
      expect.objectContaining({
        message: 'PersistedQueryNotFound',
        extensions: expect.objectContaining({ code: 'PERSISTED_QUERY_NOT_FOUND' }),
      }),
    ]);

    const registered = await post(gw, { query, extensions: apq(hash) });
    expect(registered.body.errors).toBeUndefined();
    expect(registered.body.data.balance.available.currency).toBe('RUB');

    const hit = await post(gw, { extensions: apq(hash) });
    expect(hit.status).toBe(200);
    expect(hit.body).toEqual(registered.body);
  });

  it('registers a query whose parse and validation yoga had cached from an earlier plain request', async () => {
    const query = 'query CachedFirst { __typename }';
    expect((await post(gw, { query })).body.data).toEqual({ __typename: 'Query' });
    expect((await post(gw, { query, extensions: apq(sha256(query)) })).body.data).toEqual({ __typename: 'Query' });
    expect((await post(gw, { extensions: apq(sha256(query)) })).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses a query sent with a hash that is not its own, and registers nothing under that hash', async () => {
    const query = 'query Wrong { __typename }';
    const otherHash = sha256('query Other { __typename }');
    const refused = await post(gw, { query, extensions: apq(otherHash) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
    expect((await post(gw, { extensions: apq(otherHash) })).body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('does not register a query that fails validation', async () => {
    const query = 'query Invalid { noSuchField }';
    const hash = sha256(query);
    expect((await post(gw, { query, extensions: apq(hash) })).body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await post(gw, { extensions: apq(hash) })).body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('keeps at most GATEWAY_APQ_CACHE_SIZE documents, the least recently used going first', async () => {
    const queries = ['query Lru1 { __typename }', 'query Lru2 { __typename }', 'query Lru3 { __typename }'];
    for (const query of queries)
      expect((await post(gw, { query, extensions: apq(sha256(query)) })).body.data).toEqual({ __typename: 'Query' });
    const codes = await Promise.all(
      queries.map(async (q) => (await post(gw, { extensions: apq(sha256(q)) })).body.errors?.[0]?.extensions?.code ?? 'hit'),
    );
    expect(codes).toEqual(['PERSISTED_QUERY_NOT_FOUND', 'hit', 'hit']);
  });

  it('runs a documentId of the manifest (POST, GET), and answers PERSISTED_QUERY_NOT_FOUND for one it does not hold', async () => {
    const id = pageDocumentId('Hello');
    expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await post(gw, { documentId: id })).body).toEqual({ data: { __typename: 'Query' } });
    expect((await get(gw, { documentId: id })).body).toEqual({ data: { __typename: 'Query' } });
    const me = await post(gw, { documentId: pageDocumentId('Me') });
    expect(me.body.data.me.identity).toBe('anonymous');

    const missing = await post(gw, { documentId: `sha256:${'0'.repeat(64)}` });
    expect(missing.status).toBe(400);
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await get(gw, { documentId: `sha256:${'0'.repeat(64)}` })).body.errors?.[0]?.extensions?.code).toBe(
      'PERSISTED_QUERY_NOT_FOUND',
    );
  });

  it('refuses a mutation named by documentId on a GET, as yoga refuses its text there', async () => {
    const refused = await get(gw, { documentId: pageDocumentId('Review'), variables: JSON.stringify({ id: 'no-such-batch' }) });
    expect(refused.status).toBe(405);
    expect(refused.body.data).toBeUndefined();
  });

  it('still runs free-form queries, and still refuses a request with neither query nor documentId', async () => {
    expect((await post(gw, { query: '{ __typename }' })).body).toEqual({ data: { __typename: 'Query' } });
    const none = await post(gw, { variables: {} });
    expect(none.status).toBe(400);
    expect(none.body.errors?.[0]).toMatchObject({
      message: 'Must provide query string or documentId.',
      extensions: { code: 'BAD_REQUEST' },
    });
  });
});

describe('trusted documents (GATEWAY_TRUSTED_DOCUMENTS)', () => {
  let gw: TestGateway;
  let dir: string;
  const extra = 'query TeamBalance { balance { available { value currency } } }';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'trusted-documents-'));
    await writeFile(join(dir, 'team.json'), JSON.stringify({ [`sha256:${sha256(extra)}`]: extra }));
    gw = await startTestGateway({ env: { GATEWAY_TRUSTED_DOCUMENTS: join(dir, 'team.json') } });
  });
  afterAll(async () => {
    await gw.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a free-form query, and an APQ registration, with TRUSTED_DOCUMENTS_ONLY', async () => {
    const free = await post(gw, { query: '{ __typename }' });
    expect(free.status).toBe(400);
    expect(free.body.errors?.[0]?.extensions?.code).toBe('TRUSTED_DOCUMENTS_ONLY');
    const query = 'query NotTrusted { __typename }';
    expect((await post(gw, { query, extensions: apq(sha256(query)) })).body.errors?.[0]?.extensions?.code).toBe('TRUSTED_DOCUMENTS_ONLY');
    expect((await post(gw, { extensions: apq(sha256(query)) })).body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it("runs the page's operations and the manifest file's, by documentId or by their APQ hash", async () => {
    expect((await post(gw, { documentId: pageDocumentId('Hello') })).body).toEqual({ data: { __typename: 'Query' } });
    const team = await post(gw, { documentId: `sha256:${sha256(extra)}` });
    expect(team.body.data.balance.available.currency).toBe('RUB');
    expect((await post(gw, { extensions: apq(sha256(extra)) })).body).toEqual(team.body);
    const missing = await post(gw, { documentId: `sha256:${sha256('query Unknown { __typename }')}` });
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it("runs a trusted document's exact text, over HTTP and over WebSocket, and refuses any other text there too", async () => {
    const byText = await post(gw, { query: extra });
    expect(byText.body.data.balance.available.currency).toBe('RUB');

    const ws = createClient({
      url: `${gw.gateway.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
    });
    const run = (query: string) =>
      new Promise<{ data?: any; errors?: Array<{ extensions?: Record<string, unknown> }> }>((resolve) => {
        let result: any;
        ws.subscribe(
          { query },
          { next: (value) => (result = value), error: (errors) => resolve({ errors: errors as any }), complete: () => resolve(result) },
        );
      });
    try {
      expect((await run(extra)).data.balance.available.currency).toBe('RUB');
      const refused = await run('query Free { __typename }');
      expect(refused.errors?.[0]?.extensions?.code).toBe('TRUSTED_DOCUMENTS_ONLY');
    } finally {
      await ws.dispose();
    }
  });

  it('`only` runs the page alone', async () => {
    const only = await startTestGateway({ env: { GATEWAY_TRUSTED_DOCUMENTS: 'only' } });
    try {
      expect((await post(only, { documentId: pageDocumentId('Hello') })).body).toEqual({ data: { __typename: 'Query' } });
      expect((await post(only, { documentId: `sha256:${sha256(extra)}` })).body.errors?.[0]?.extensions?.code).toBe(
        'PERSISTED_QUERY_NOT_FOUND',
      );
      expect((await post(only, { query: '{ __typename }' })).body.errors?.[0]?.extensions?.code).toBe('TRUSTED_DOCUMENTS_ONLY');
    } finally {
      await only.close();
    }
  });

  it('refuses a manifest entry whose id is not its hash, or that the schema does not accept', async () => {
    expect(() => new PersistedDocuments(schema, [{ [`sha256:${'1'.repeat(64)}`]: '{ __typename }' }])).toThrow(
      /not the sha256 of its text/,
    );
    const invalid = 'query Gone { noSuchField }';
    const documents = new PersistedDocuments(schema, [{ [`sha256:${sha256(invalid)}`]: invalid }]);
    expect(() => documents.validateAll()).toThrow(/not valid against the schema/);
    // A manifest file an operator names is checked whole when the gateway's GraphQL server is made.
    await writeFile(join(dir, 'stale.json'), JSON.stringify({ [`sha256:${sha256(invalid)}`]: invalid }));
    expect(() => usePersistedOperationsWith(schema, { trustedDocuments: { file: join(dir, 'stale.json') }, apqCacheSize: 0 })).toThrow(
      /not valid against the schema/,
    );
  });
});

describe("the page's manifest (web/src/gql)", () => {
  it('is what `npm run web:documents` makes from the page and the schema now', async () => {
    const out = await mkdtemp(join(root, '.web-documents-'));
    try {
      const [[, output]] = Object.entries(codegenConfig.generates) as [[string, object]];
      await generate({ ...codegenConfig, cwd: root, generates: { [`${out}/`]: output } }, true);
      const committed = join(root, 'web/src/gql');
      const files = (await readdir(committed)).sort();
      expect((await readdir(out)).sort()).toEqual(files);
      for (const file of files) {
        expect(await readFile(join(out, file), 'utf8'), `web/src/gql/${file} is stale: run npm run web:documents`).toBe(
          await readFile(join(committed, file), 'utf8'),
        );
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it("holds every operation the page sends, each valid against today's schema", () => {
    const names = Object.values(PAGE_DOCUMENTS).flatMap((text) =>
      [...text.matchAll(/(?:^|\s)(?:query|mutation|subscription) (\w+)/g)].map((m) => m[1]),
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'Hello',
        'Me',
        'Identities',
        'Batches',
        'Batch',
        'BatchProgress',
        'ImportBatch',
        'ApproveBatch',
        'ReconciliationRuns',
        'ApiKeys',
        'People',
        'CreateApiKey',
        'RevokeApiKey',
      ]),
    );
    const documents = new PersistedDocuments(schema, [PAGE_DOCUMENTS]);
    expect(() => documents.validateAll()).not.toThrow();
    expect(documents.size).toBe(Object.keys(PAGE_DOCUMENTS).length);
  });
});

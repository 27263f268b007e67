import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takesJsonPost } from '../../src/graphql/transports/json-post.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, apiKeysEnv } from '../support/keys.ts';

/**
 * A JSON POST over the port is served without yoga's HTTP adapter (graphql/transports/json-post.ts);
 * every answer must be the one yoga gives the same request through its own adapter (yoga.fetch).
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { GATEWAY_API_KEYS: apiKeysEnv({ 'admin-key': 'admin', 'viewer-key': 'viewer' }) } });
});
afterAll(() => gw.close());

const admin = { authorization: `Bearer ${apiKey('admin-key')}` };
const json = { 'content-type': 'application/json', accept: 'application/json' };

/** The same request over the port and through yoga.fetch: status, the headers that matter and the body, the request id aside. */
async function bothWays(headers: Record<string, string>, body: string) {
  // Copies: yoga's Headers write into the object they are given (a content-length).
  const overPort = await gw.http('/graphql', { method: 'POST', headers: { ...headers }, body });
  const throughYoga = await gw.gateway.yoga.fetch('http://gateway/graphql', { method: 'POST', headers: { ...headers }, body });
  const withoutIds = (text: string) => text.replace(/"requestId":"[^"]*"/g, '"requestId":"…"');
  return {
    port: {
      status: overPort.status,
      contentType: overPort.headers['content-type'],
      wwwAuthenticate: overPort.headers['www-authenticate'],
      body: withoutIds(overPort.text),
    },
    yoga: {
      status: throughYoga.status,
      contentType: throughYoga.headers.get('content-type') ?? undefined,
      wwwAuthenticate: throughYoga.headers.get('www-authenticate') ?? undefined,
      body: withoutIds(await throughYoga.text()),
    },
  };
}

describe('a JSON POST served beside yoga’s adapter', () => {
  const cases: Array<[string, Record<string, string>, unknown]> = [
    ['an answered query', { ...json, ...admin }, { query: '{ balance { available { value currency } } }' }],
    [
      'an operation name and variables',
      { ...json, ...admin },
      { query: 'query P($id: ID!) { payment(paymentId: $id) { paymentId } }', operationName: 'P', variables: { id: 'p-none' } },
    ],
    ['no key', json, { query: '{ balance { available { value } } }' }],
    ['a syntax error', { ...json, ...admin }, { query: '{ balance { ' }],
    ['an unknown field', { ...json, ...admin }, { query: '{ balanceOfNothing }' }],
    [
      'a wrong variable',
      { ...json, ...admin },
      { query: 'query P($id: ID!) { payment(paymentId: $id) { paymentId } }', variables: { id: { no: 1 } } },
    ],
    [
      'a query over the limits',
      { ...json, ...admin },
      { query: `{ ${Array.from({ length: 60 }, (_, i) => `a${i}: balance { available { value } }`).join(' ')} }` },
    ],
    [
      'graphql-response+json',
      { ...admin, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      { query: '{ balanceOfNothing }' },
    ],
    ['no Accept', { ...admin, 'content-type': 'application/json' }, { query: '{ balance { available { value } } }' }],
    [
      'a mutation refused to a viewer',
      { ...json, authorization: `Bearer ${apiKey('viewer-key')}` },
      { query: 'mutation { executePayment(paymentId: "p-1") { __typename } }' },
    ],
    ['an unknown documentId (yoga’s, whole)', { ...json, ...admin }, { documentId: 'sha256:0000' }],
    ['a batch (yoga’s, whole)', { ...json, ...admin }, [{ query: '{ __typename }' }]],
  ];
  it.each(cases)('%s: the same answer', async (_name, headers, body) => {
    const { port, yoga } = await bothWays(headers, JSON.stringify(body));
    expect(port).toEqual(yoga);
  });

  it('broken JSON: yoga’s 400, the same', async () => {
    const { port, yoga } = await bothWays({ ...json, ...admin }, '{"query": ');
    expect(port.status).toBe(400);
    expect(port).toEqual(yoga);
  });
});

describe('takesJsonPost', () => {
  const req = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as IncomingMessage;
  const plain = { 'content-type': 'application/json', 'content-length': '40' };
  it('takes a JSON POST with a Content-Length', () => {
    expect(takesJsonPost(req('POST', plain))).toBe(true);
    expect(takesJsonPost(req('POST', { ...plain, 'content-type': 'application/json; charset=utf-8' }))).toBe(true);
  });
  it('leaves to yoga what its skipped hooks would answer: CORS, chunked or large bodies, streams, other types and methods', () => {
    expect(takesJsonPost(req('POST', { ...plain, origin: 'https://example.com' }))).toBe(false);
    expect(takesJsonPost(req('POST', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }))).toBe(false);
    expect(takesJsonPost(req('POST', { ...plain, 'content-length': String(2 * 1024 * 1024) }))).toBe(false);
    expect(takesJsonPost(req('POST', { ...plain, accept: 'text/event-stream' }))).toBe(false);
    expect(takesJsonPost(req('POST', { ...plain, accept: 'multipart/mixed' }))).toBe(false);
    expect(takesJsonPost(req('POST', { ...plain, 'content-type': 'multipart/form-data; boundary=x' }))).toBe(false);
    expect(takesJsonPost(req('POST', { ...plain, 'content-type': 'application/graphql' }))).toBe(false);
    expect(takesJsonPost(req('GET', plain))).toBe(false);
  });
});

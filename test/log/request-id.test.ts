import { Writable } from 'node:stream';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let gw: TestGateway;
/** Every line the gateway logged, parsed. */
const lines: Array<Record<string, any>> = [];
let raw = '';

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      raw += String(chunk);
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  gw = await startTestGateway({
    env: { GATEWAY_API_KEYS: apiKeysEnv({ op: 'operator', ad: 'admin' }) },
    logger: createLogger({ level: 'info' }, sink),
  });
});
afterAll(() => gw?.close());

async function call(path: string, init: Parameters<typeof request>[1] = {}) {
  const response = await request(`${gw.gateway.url}${path}`, init);
  const text = await response.body.text();
  return { status: response.statusCode, id: response.headers['x-request-id'], text };
}

const linesOf = (requestId: string) => lines.filter((line) => line.requestId === requestId);

describe('x-request-id', () => {
  it('is made when none is sent, a new one each time', async () => {
    const first = await call('/healthz');
    const second = await call('/healthz');
    expect(first.id).toMatch(UUID);
    expect(second.id).toMatch(UUID);
    expect(second.id).not.toBe(first.id);
  });

  it('is returned as sent when it is short and made of safe characters', async () => {
    for (const sent of ['abc-123', 'trace.1_A:b', 'x'.repeat(64), '0f0e3c1a-5a0b-4c6e-9a1f-2b3c4d5e6f70']) {
      expect((await call('/healthz', { headers: { 'x-request-id': sent } })).id).toBe(sent);
    }
  });

  it('is replaced by a new one when unsafe, too long or empty', async () => {
    for (const sent of ['has space', '<script>', 'a\\b', 'x'.repeat(65), 'a/b', 'a;b', '"quoted"', '']) {
      const { id } = await call('/healthz', { headers: { 'x-request-id': sent } });
      expect(id, sent).toMatch(UUID);
    }
  });

  it('is on every response: GraphQL, refusals, probes, webhooks, downloads, 404', async () => {
    const gql = (key?: string) => ({
      method: 'POST' as const,
      headers: {
        'content-type': 'application/json',
        'x-request-id': 'rid-each',
        ...(key === undefined ? {} : { authorization: `Bearer ${apiKey(key)}` }),
      },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    const withId = { headers: { 'x-request-id': 'rid-each' } };
    const replies = [
      await call('/graphql', gql('op')),
      await call('/graphql', gql()),
      await call('/graphql', { method: 'GET', headers: { 'x-request-id': 'rid-each', accept: 'text/html' } }),
      await call('/healthz', withId),
      await call('/readyz', withId),
      await call('/webhooks/payout', {
        method: 'POST',
        headers: { 'x-request-id': 'rid-each', 'content-type': 'application/json' },
        body: '{not json',
      }),
      await call('/webhooks/payout', withId),
      await call('/batches/nope/results.csv', withId),
      await call('/batches/nope/results.csv', { headers: { 'x-request-id': 'rid-each', authorization: `Bearer ${apiKey('op')}` } }),
      await call('/metrics', withId),
      await call('/no/such/route', withId),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 401, 200, 200, 200, 400, 405, 401, 404, 401, 404]);
    for (const reply of replies) expect(reply.id).toBe('rid-each');
  });

  it('is in the extensions of GraphQL errors, so a user can quote it', async () => {
    const unauthenticated = await call('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'rid-unauth' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(JSON.parse(unauthenticated.text).errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', requestId: 'rid-unauth' });

    const invalid = await call('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey('op')}` },
      body: JSON.stringify({ query: '{ noSuchField }' }),
    });
    const errors = JSON.parse(invalid.text).errors;
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error.extensions.requestId).toBe(invalid.id);
  });

  it('is on every log line of the request, with the batch id on the lines about a batch', async () => {
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: 'mutation($file: File!) { importBatch(file: $file, force: true) { __typename ... on ImportBatchSuccess { batch { id } } } }',
        variables: { file: null },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob(['provider,amount,account\nbank-card-token,10.00,token_success\n']), 'one.csv');
    const reply = await call('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey('op')}`, 'x-graphql-yoga-csrf': '1', 'x-request-id': 'rid-import' },
      body: form,
    });
    const batchId = JSON.parse(reply.text).data.importBatch.batch.id;
    const own = await eventually(() => {
      const found = linesOf('rid-import');
      expect(found.map((line) => line.msg)).toEqual(expect.arrayContaining(['batch imported', 'request completed']));
      return found;
    });
    expect(own.find((line) => line.msg === 'batch imported')).toMatchObject({ batchId });
    expect(own.find((line) => line.msg === 'request completed')).toMatchObject({
      req: { method: 'POST', path: '/graphql' },
      res: { statusCode: 200 },
    });
  });

  it('puts the paymentId and the upstream traceId on the line of a failed upstream call', async () => {
    await call('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey('op')}`, 'x-request-id': 'rid-upstream' },
      body: JSON.stringify({ query: '{ payment(paymentId: "nobody-upstream") { paymentId } }' }),
    });
    const failed = await eventually(() => {
      const found = linesOf('rid-upstream').filter((line) => line.msg === 'payout call failed');
      expect(found.length).toBeGreaterThan(0);
      return found;
    });
    expect(failed[0]).toMatchObject({
      paymentId: 'nobody-upstream',
      traceId: expect.any(String),
      outcome: 'refused',
      code: 'payout.payment.not-found',
    });
  });

  it('logs a refused and an unknown route too, never a key or a query string', async () => {
    await call('/no/such/route?pan=2200000000000004', { headers: { 'x-request-id': 'rid-404', authorization: 'Bearer top-secret-key' } });
    const [line] = await eventually(() => {
      const found = linesOf('rid-404');
      expect(found).toHaveLength(1);
      return found;
    });
    expect(line).toMatchObject({ msg: 'request completed', req: { method: 'GET', path: '/no/such/route' }, res: { statusCode: 404 } });
    expect(raw).not.toMatch(/top-secret-key|2200000000000004/);
  });
});

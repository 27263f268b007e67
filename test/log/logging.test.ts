import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { maskPan, maskRecipientFields } from '../../src/log/mask.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

describe('masking', () => {
  it('keeps the first 4 and last 4 digits of a card number', () => {
    expect(maskPan('2200000000000004')).toBe('2200********0004');
    expect(maskPan('2200 0000 0000 0004')).toBe('2200********0004');
  });

  it('masks card numbers and accounts in recipient fields, keeps names', () => {
    expect(maskRecipientFields({ pan: '2200000000000004', account: '79001234567', lastName: 'Ivanov' })).toEqual({
      pan: '2200********0004',
      account: '*******4567',
      lastName: 'Ivanov',
    });
  });
});

describe('logger redaction', () => {
  it('never writes tokens, signatures or card numbers', () => {
    let output = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        output += String(chunk);
        done();
      },
    });
    const logger = createLogger({ level: 'info' }, sink);
    logger.info({
      headers: { authorization: 'Bearer top-secret-token', signature: 'c2lnbmF0dXJl' },
      token: 'top-secret-token',
      recipient: { fields: { pan: '2200000000000004' } },
      payment: { pan: '2200000000000004', privateKey: '-----BEGIN PRIVATE KEY-----' },
    });
    expect(output).not.toMatch(/top-secret-token|c2lnbmF0dXJl|2200000000000004|BEGIN PRIVATE/);
    expect(output).toContain('[redacted]');
  });
});

describe('the log of GraphQL requests', () => {
  let gw: TestGateway;
  let output = '';
  const lines = () =>
    output
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, any>);

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        output += String(chunk);
        done();
      },
    });
    gw = await startTestGateway({ logger: createLogger({ level: 'info' }, sink) });
  });
  afterAll(() => gw?.close());

  const post = (query: string) =>
    gw.http('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

  it("names the operation on the request's line", async () => {
    const reply = await post('query Funds { balance { available { value } } }');
    const line = lines().find((l) => l.component === 'http' && l.requestId === reply.headers['x-request-id']);
    expect(line).toMatchObject({ operationName: 'Funds', operationType: 'query', res: { statusCode: 200 } });
  });

  it("logs a client's paging mistake and a validation error below error level, with a message and no stack", async () => {
    const paging = await post('query Paging { payments(first: -1) { edges { cursor } } }');
    const invalid = await post('query Broken { nope }');
    for (const reply of [paging, invalid]) {
      const mine = lines().filter((l) => l.requestId === reply.headers['x-request-id']);
      expect(mine.length).toBeGreaterThan(0);
      for (const line of mine) {
        expect(line.level).toBeLessThan(50);
        expect(JSON.stringify(line)).not.toContain('stack');
      }
    }
    // The paging mistake is answered as BAD_USER_INPUT naming its argument; a line of its own, if
    // any, is info (the loop above), never an error with a stack.
    expect(JSON.parse(paging.text).errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', argument: 'first' } });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * Issue 29, finding 9: a gateway without GATEWAY_API_KEYS serves anonymous local use. A
 * key sent to it is someone's mistake (the wrong gateway, a key meant for production):
 * accepting it silently would let them believe it was checked.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

describe('a gateway without keys', () => {
  it('answers a request with no Authorization header as the anonymous admin', async () => {
    const reply = await gw.gql('{ me { identity role } }');
    expect(reply.status).toBe(200);
    expect(reply.body.data.me).toEqual({ identity: 'anonymous', role: 'ADMIN' });
  });

  it('refuses a bearer key with UNAUTHENTICATED, saying it has no keys and no header should be sent', async () => {
    const reply = await gw.gql('{ me { identity } }', {}, 'some-production-key-123');
    expect(reply.status).toBe(401);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(reply.body.errors?.[0]?.message).toMatch(/no API keys configured/i);
    expect(reply.body.errors?.[0]?.message).toMatch(/send no Authorization header/i);
    expect(JSON.stringify(reply.body)).not.toContain('some-production-key-123');
  });
});

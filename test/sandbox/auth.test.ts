import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type TestSandbox } from '../support/sandbox.ts';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const errorFields = ['serviceName', 'errorCode', 'userMessage', 'description', 'traceId', 'dateTime'];

describe('sandbox authentication (spec: Authentication 1)', () => {
  it.each([
    ['no Authorization header', null, 401, 'auth.failed'],
    ['an unknown token', 'wrong-token', 401, 'auth.failed'],
  ])('answers %s with %i %s', async (_case, token, status, code) => {
    const response = await sb.get('/balance', { token });
    expect(response.status).toBe(status);
    expect(response.body.errorCode).toBe(code);
  });

  it('answers a header that is not Bearer with 401 auth.error', async () => {
    const response = await sb.raw('GET', sb.agentPath('/balance'), { token: null, headers: { authorization: 'Basic abc' } });
    expect(response.status).toBe(401);
    expect(response.body.errorCode).toBe('auth.error');
  });

  it("answers another agent's paths with 403 auth.forbidden", async () => {
    const response = await sb.raw('GET', sb.agentPath('/balance', 'agent-2'));
    expect(response.status).toBe(403);
    expect(response.body.errorCode).toBe('auth.forbidden');
  });

  it('guards every endpoint, payments included', async () => {
    for (const [method, path] of [
      ['GET', '/balances'],
      ['GET', '/providers'],
      ['GET', '/providers/sbp-b2c'],
      ['GET', '/payments'],
      ['GET', '/payments/p1'],
      ['PUT', '/payments/p1'],
      ['POST', '/payments/p1/execute'],
    ] as const) {
      const response = await sb.raw(method, sb.agentPath(path), { token: 'nope' });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });

  it('returns a complete Error object with a fresh traceId each time', async () => {
    const first = await sb.get('/balance', { token: 'x' });
    const second = await sb.get('/balance', { token: 'x' });
    for (const field of errorFields) expect(first.body).toHaveProperty(field);
    expect(first.body.dateTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    expect(first.body.traceId).not.toBe(second.body.traceId);
  });

  it('answers unknown paths and versions with a 404 Error object', async () => {
    const response = await sb.raw('GET', '/partner/payout/v1/agents/agent-1/balance');
    expect(response.status).toBe(404);
    expect(response.body.errorCode).toBe('validation.error');
    const wrongMethod = await sb.raw('DELETE', sb.agentPath('/payments/p1'));
    expect(wrongMethod.status).toBe(404);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config-error.ts';
import { loadGatewayConfig, loadSandboxEnv } from '../src/config/env.ts';

function problems(load: () => unknown): Record<string, string> {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) {
      const found: Record<string, string> = {};
      for (const p of error.problems) found[p.variable] = found[p.variable] ? `${found[p.variable]}; ${p.message}` : p.message;
      return found;
    }
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('gateway configuration', () => {
  it('runs on embedded defaults with an empty environment', () => {
    const config = loadGatewayConfig({});
    expect(config.port).toBe(4000);
    expect(config.dataDir).toBe('./.data');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.payout.mode).toBe('embedded');
    expect(config.payout.agentId).toBe('sandbox-agent');
    expect(config.payout.maxRetries).toBe(3);
    expect(config.apiKeys.size).toBe(0);
  });

  it('treats empty variables as unset', () => {
    expect(loadGatewayConfig({ PORT: '', PAYOUT_API_URL: ' ' }).payout.mode).toBe('embedded');
  });

  it('names every bad variable at once', () => {
    const found = problems(() =>
      loadGatewayConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', PAYOUT_API_URL: 'ftp://x', PAYOUT_MAX_RETRIES: '-1' }),
    );
    expect(Object.keys(found)).toEqual(expect.arrayContaining(['DATABASE_URL', 'PAYOUT_API_URL', 'PAYOUT_MAX_RETRIES', 'PORT']));
    expect(found.DATABASE_URL).toMatch(/postgres/);
  });

  it('requires credentials, key and webhook secret for a real upstream, naming each missing one', () => {
    const found = problems(() => loadGatewayConfig({ PAYOUT_API_URL: 'https://payout.example', PAYOUT_AGENT_ID: 'a' }));
    expect(Object.keys(found).sort()).toEqual([
      'GATEWAY_API_KEYS',
      'PAYOUT_API_TOKEN',
      'PAYOUT_PRIVATE_KEY_FILE',
      'PAYOUT_WEBHOOK_SECRET',
    ]);
  });

  it('reports missing credentials together with other bad variables', () => {
    const found = problems(() => loadGatewayConfig({ PORT: 'x', PAYOUT_API_URL: 'https://payout.example' }));
    expect(Object.keys(found).sort()).toEqual([
      'GATEWAY_API_KEYS',
      'PAYOUT_AGENT_ID',
      'PAYOUT_API_TOKEN',
      'PAYOUT_PRIVATE_KEY_FILE',
      'PAYOUT_WEBHOOK_SECRET',
      'PORT',
    ]);
  });

  it('builds remote settings when all are given and trims the URL', () => {
    const config = loadGatewayConfig({
      PAYOUT_API_URL: 'https://payout.example/',
      PAYOUT_AGENT_ID: 'agent',
      PAYOUT_API_TOKEN: 'token',
      PAYOUT_PRIVATE_KEY_FILE: '/keys/p.pem',
      PAYOUT_WEBHOOK_SECRET: 'secret',
      GATEWAY_API_KEYS: 'k:admin',
    });
    expect(config.payout).toMatchObject({ mode: 'remote', apiUrl: 'https://payout.example', agentId: 'agent' });
  });

  it('serves anonymous use on loopback only', () => {
    expect(problems(() => loadGatewayConfig({ HOST: '0.0.0.0' })).HOST).toMatch(/loopback/);
    expect(loadGatewayConfig({ HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
    expect(loadGatewayConfig({ HOST: '0.0.0.0', GATEWAY_API_KEYS: 'k:viewer' }).host).toBe('0.0.0.0');
  });

  it('parses GATEWAY_API_KEYS as key:role pairs', () => {
    const config = loadGatewayConfig({ GATEWAY_API_KEYS: 'k1:viewer, k2:admin,with:colon:operator' });
    expect([...config.apiKeys]).toEqual([
      ['k1', 'viewer'],
      ['k2', 'admin'],
      ['with:colon', 'operator'],
    ]);
  });

  it('refuses unknown roles and repeated keys without echoing the keys', () => {
    const found = problems(() => loadGatewayConfig({ GATEWAY_API_KEYS: 'secret-one:root,secret-two:admin,secret-two:viewer' }));
    expect(found.GATEWAY_API_KEYS).toMatch(/entry 1 must look like KEY:ROLE/);
    expect(found.GATEWAY_API_KEYS).toMatch(/entry 3 repeats a key/);
    expect(found.GATEWAY_API_KEYS).not.toMatch(/secret/);
  });
});

describe('sandbox configuration', () => {
  it('has documented defaults', () => {
    const env = loadSandboxEnv({});
    expect(env.SANDBOX_PORT).toBe(4010);
    expect(env.PAYOUT_AGENT_ID).toBe('sandbox-agent');
    expect(env.SANDBOX_BALANCE).toBe('100000000000.00');
  });

  it('refuses rates outside 0..1 and amounts that are not money', () => {
    const found = problems(() => loadSandboxEnv({ SANDBOX_FAIL_AFTER_RATE: '2', SANDBOX_BALANCE: '100' }));
    expect(Object.keys(found).sort()).toEqual(['SANDBOX_BALANCE', 'SANDBOX_FAIL_AFTER_RATE']);
  });
});

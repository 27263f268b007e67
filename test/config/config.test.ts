import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadGatewayConfig, loadSandboxEnv } from '../../src/config/env.ts';
import { apiKey } from '../support/keys.ts';

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
    expect(config.apiKeys).toEqual([]);
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
    expect(Object.keys(found).sort()).toEqual(['GATEWAY_API_KEYS', 'PAYOUT_API_TOKEN', 'PAYOUT_PRIVATE_KEY_FILE', 'PAYOUT_WEBHOOK_SECRET']);
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
      GATEWAY_API_KEYS: `${apiKey('k')}:admin`,
    });
    expect(config.payout).toMatchObject({ mode: 'remote', apiUrl: 'https://payout.example', agentId: 'agent' });
  });

  it('serves anonymous use on loopback only', () => {
    expect(problems(() => loadGatewayConfig({ HOST: '0.0.0.0' })).HOST).toMatch(/loopback/);
    expect(loadGatewayConfig({ HOST: '127.0.0.1' }).host).toBe('127.0.0.1');
    expect(loadGatewayConfig({ HOST: '0.0.0.0', GATEWAY_API_KEYS: `${apiKey('k')}:viewer` }).host).toBe('0.0.0.0');
  });

  it('parses GATEWAY_API_KEYS as NAME:ROLE:KEY and, as before, KEY:ROLE (a key may hold colons)', () => {
    const [k1, k2, k3] = [apiKey('k1'), apiKey('k2'), apiKey('k3')];
    const config = loadGatewayConfig({
      GATEWAY_API_KEYS: `alice:approver:${k1}, ${k2}:admin,with:${k3}:operator,bob.smith:viewer:${k3}x:y`,
    });
    expect(config.apiKeys).toEqual([
      { position: 1, name: 'alice', role: 'approver', key: k1 },
      { position: 2, name: undefined, role: 'admin', key: k2 },
      { position: 3, name: undefined, role: 'operator', key: `with:${k3}` },
      { position: 4, name: 'bob.smith', role: 'viewer', key: `${k3}x:y` },
    ]);
  });

  it('refuses unknown roles and repeated keys without echoing the keys', () => {
    const [one, two] = [`secret-one-${apiKey('1')}`, `secret-two-${apiKey('2')}`];
    const found = problems(() => loadGatewayConfig({ GATEWAY_API_KEYS: `${one}:root,${two}:admin,${two}:viewer` }));
    expect(found.GATEWAY_API_KEYS).toMatch(/entry 1 must look like NAME:ROLE:KEY or KEY:ROLE/);
    expect(found.GATEWAY_API_KEYS).toMatch(/entry 3 repeats a key/);
    expect(found.GATEWAY_API_KEYS).not.toMatch(/secret/);
  });

  it('refuses keys that are short or easy to guess, naming the entry by position and name, never the key', () => {
    const entries = [
      'kop:admin', // sha256("kop") starts 8166be977a9b: three letters fall to any offline guess
      `alice:operator:${'x'.repeat(40)}`,
      `${'ab'.repeat(20)}:viewer`,
      `bob:approver:${'a'.repeat(30)}bcdefghijk`,
      'carol:viewer:short-but-named',
      `dave:viewer:${apiKey('dave')}`,
    ];
    const found = problems(() => loadGatewayConfig({ GATEWAY_API_KEYS: entries.join(',') })).GATEWAY_API_KEYS!;
    expect(found).toMatch(/entry 1: the key is shorter than 32 characters/);
    expect(found).toMatch(/entry 2 \("alice"\): the key repeats a pattern/);
    expect(found).toMatch(/entry 3: the key repeats a pattern/);
    expect(found).toMatch(/entry 4 \("bob"\): the key is too easy to guess \(estimated \d+ bits, at least 128 are needed\)/);
    expect(found).toMatch(/entry 5 \("carol"\): the key is shorter than 32 characters/);
    expect(found).not.toMatch(/entry 6/);
    for (const secret of ['kop', 'xxxx', 'abab', 'aaaa', 'short-but-named']) expect(found).not.toContain(secret);
  });

  it('takes random keys as generated (openssl rand -hex 32 / -base64 32), 32 hex characters at least', () => {
    const keys = ['0f8e7d6c5b4a39281706f5e4d3c2b1a0', 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo=', apiKey('any')];
    expect(loadGatewayConfig({ GATEWAY_API_KEYS: keys.map((key) => `${key}:viewer`).join(',') }).apiKeys).toHaveLength(3);
  });

  it('refuses two entries with one name (maker-checker tells people apart by it), whatever the case', () => {
    const env = `alice:operator:${apiKey('a1')},bob:approver:${apiKey('b')},Alice:approver:${apiKey('a2')}`;
    const found = problems(() => loadGatewayConfig({ GATEWAY_API_KEYS: env })).GATEWAY_API_KEYS;
    expect(found).toMatch(/entry 3 \("Alice"\) repeats the name of entry 1/);
  });

  it('refuses an entry that reads both ways rather than guess its role', () => {
    const found = problems(() => loadGatewayConfig({ GATEWAY_API_KEYS: `alice:admin:${apiKey('x')}:viewer` })).GATEWAY_API_KEYS;
    expect(found).toMatch(/entry 1 reads both as NAME:ROLE:KEY and as KEY:ROLE/);
  });

  it("reads the providers' commission tariffs (COMMISSION_TARIFFS) into percents and minimum fees in kopecks", () => {
    expect(loadGatewayConfig({}).commission).toEqual({ tariffs: {}, defaultPercent: '2' });
    const config = loadGatewayConfig({
      COMMISSION_TARIFFS: ' bank-card-russia:1.5%:25.00, sbp-b2c : 0.7 : 10 ',
      COMMISSION_ESTIMATE_PERCENT: '1.5',
    });
    expect(config.commission).toEqual({
      tariffs: { 'bank-card-russia': { percent: '1.5', minimumMinor: 2_500n }, 'sbp-b2c': { percent: '0.7', minimumMinor: 1_000n } },
      defaultPercent: '1.5',
    });
  });

  it('refuses a tariff it cannot read, naming each entry', () => {
    const found = problems(() =>
      loadGatewayConfig({
        COMMISSION_TARIFFS:
          'bank-card-russia:1.5%,Cards:1%:0,sbp-b2c:1,5%:10,sbp-fio:0.7%:ten,sbp-b2c:0.7%:10,sbp-b2c:0.8%:10,constructor:1%:0',
      }),
    ).COMMISSION_TARIFFS;
    expect(found).toMatch(/entry 1 "bank-card-russia:1.5%" is not PROVIDER:PERCENT%:MINIMUM/);
    expect(found).toMatch(/entry 2 "Cards:1%:0": "Cards" is not a provider code/);
    // A decimal comma splits the entry: the list is comma-separated.
    expect(found).toMatch(/entry 3 "sbp-b2c:1" is not PROVIDER:PERCENT%:MINIMUM/);
    expect(found).toMatch(/entry 5 "sbp-fio:0.7%:ten": "ten" is not a minimum fee/);
    expect(found).toMatch(/entry 7 "sbp-b2c:0.8%:10": sbp-b2c is given twice/);
    expect(found).not.toMatch(/entry 8/);
  });

  it('takes SCHEDULE_FORECAST_LEAD_HOURS as a number of hours above 0, fractions included', () => {
    expect(loadGatewayConfig({}).schedule.forecastLeadMs).toBe(24 * 3_600_000);
    expect(loadGatewayConfig({ SCHEDULE_FORECAST_LEAD_HOURS: '0.5' }).schedule.forecastLeadMs).toBe(1_800_000);
    expect(loadGatewayConfig({ SCHEDULE_FORECAST_LEAD_HOURS: '1.25' }).schedule.forecastLeadMs).toBe(4_500_000);
    expect(loadGatewayConfig({ SCHEDULE_FORECAST_LEAD_HOURS: '48' }).schedule.forecastLeadMs).toBe(48 * 3_600_000);
    for (const bad of ['0', '-1', 'soon', '1,5', 'Infinity']) {
      expect(
        problems(() => loadGatewayConfig({ SCHEDULE_FORECAST_LEAD_HOURS: bad })),
        bad,
      ).toEqual({
        SCHEDULE_FORECAST_LEAD_HOURS: 'must be a number of hours above 0, such as 24 or 0.5',
      });
    }
  });

  it('reads the key the CLI acts as', () => {
    expect(loadGatewayConfig({ PAYOUT_CLI_KEY_FILE: '/run/secrets/payout-key' }).cliKey).toEqual({
      key: undefined,
      keyFile: '/run/secrets/payout-key',
    });
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

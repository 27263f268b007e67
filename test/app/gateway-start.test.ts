import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app/start-gateway.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createLogger } from '../../src/log/logger.ts';
import { testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from '../support/database.ts';

const logger = createLogger({ level: 'silent' });

async function getJson(url: string) {
  const response = await request(url);
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

describe('gateway on embedded defaults (no DATABASE_URL, no PAYOUT_API_URL)', () => {
  let dataDir: string;
  let gateway: RunningGateway;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payout-gateway-'));
    gateway = await startGateway(loadGatewayConfig({ PORT: '0', DATA_DIR: dataDir }), logger);
  });
  afterAll(async () => {
    await gateway.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('listens on loopback only and answers /healthz', async () => {
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await getJson(`${gateway.url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('is ready: database migrated and the embedded sandbox answering', async () => {
    expect(await getJson(`${gateway.url}/readyz`)).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: 'ok', migrations: 'ok', upstream: 'ok' } },
    });
    expect(gateway.db.kind).toBe('pglite');
    expect(gateway.upstream.sandbox).toBeDefined();
  });

  it('reaches the embedded sandbox through the signed client path', async () => {
    const payment = await gateway.upstream.client.putPayment('start-1', {
      amount: { value: '10.00', currency: 'RUB' },
      recipientDetails: { providerCode: 'bank-card-token', fields: { account: 'token_success' } },
    });
    expect(payment.status.value).toBe('READY');
    // The sandbox checked the RSA signature: a payment exists only if it verified.
    expect(gateway.upstream.sandbox!.ledger.effects('start-1')).toMatchObject({ creates: 1 });
  });

  it('answers unknown paths with 404 and a NOT_FOUND code, like every refusal', async () => {
    const reply = await getJson(`${gateway.url}/nope`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      errors: [{ message: 'no route GET /nope', extensions: { code: 'NOT_FOUND', requestId: expect.any(String) } }],
    });
  });
});

describe('embedded sandbox across gateway restarts, and its SANDBOX_* settings', () => {
  let dataDir: string;
  let gateway: RunningGateway | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payout-gateway-restart-'));
  });
  afterAll(async () => {
    await gateway?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps a paid payment and the balance when the gateway restarts on the same DATA_DIR', async () => {
    const env = { PORT: '0', DATA_DIR: dataDir, SANDBOX_BALANCE: '20000.00' };
    gateway = await startGateway(loadGatewayConfig(env), logger);
    const payload = {
      amount: { value: '1000.00', currency: 'RUB' as const },
      recipientDetails: { providerCode: 'sbp-b2c' as const, fields: { account: '79001234567', bankId: 'sbp_bank_id_success' } },
    };
    await gateway.upstream.client.putPayment('restart-1', payload);
    expect((await gateway.upstream.client.postExecute('restart-1')).status.value).toBe('COMPLETED');
    await gateway.stop();
    gateway = undefined;

    gateway = await startGateway(loadGatewayConfig(env), logger);
    expect((await gateway.upstream.client.getPayment('restart-1')).status.value).toBe('COMPLETED');
    expect((await gateway.upstream.client.getBalance()).available.value).toBe('18990.00');

    // A second process on the same DATA_DIR (the CLI or a worker beside it, on another
    // database) gets a sandbox of its own in memory; the first one's state stays whole.
    const otherDb = await openDatabase({ dataDir: undefined });
    const second = await startGateway(loadGatewayConfig(env), logger, { db: otherDb });
    try {
      expect((await second.upstream.client.getBalance()).available.value).toBe('20000.00');
      await expect(second.upstream.client.getPayment('restart-1')).rejects.toMatchObject({ code: 'payout.payment.not-found' });
    } finally {
      await second.stop();
    }
    expect((await gateway.upstream.client.getPayment('restart-1')).status.value).toBe('COMPLETED');
    await gateway.stop();
    gateway = undefined;
  });

  it('honours SANDBOX_* for the embedded sandbox as npm run sandbox does', async () => {
    const settings = {
      SANDBOX_BALANCE: '777.00',
      SANDBOX_OVERDRAFT: '23.00',
      SANDBOX_IN_PROGRESS_MS: '1234',
      SANDBOX_FAIL_AFTER_RATE: '0.25',
      SANDBOX_TRUNCATE_RATE: '0.125',
      SANDBOX_LATENCY_MS: '0',
    };
    const fresh = await mkdtemp(join(tmpdir(), 'payout-gateway-settings-'));
    try {
      gateway = await startGateway(loadGatewayConfig({ PORT: '0', DATA_DIR: fresh, ...settings }), logger);
      const sandbox = gateway.upstream.sandbox!;
      expect(sandbox.ledger.balance()).toMatchObject({
        balance: { value: '777.00' },
        overdraft: { value: '23.00' },
        available: { value: '800.00' },
      });
      expect(sandbox.faults.rates).toMatchObject({ failAfterRate: 0.25, truncateRate: 0.125, failBeforeRate: 0 });
      await gateway.stop();
      gateway = undefined;
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
    expect(() => loadGatewayConfig({ SANDBOX_BALANCE: '1e6' })).toThrow(/SANDBOX_BALANCE: must be an amount with two decimals/);
  });
});

/**
 * The PostgreSQL suite needs TEST_DATABASE_URL. CI sets it (.ci/run), so there its absence
 * is a broken setup and fails; on a developer machine without it the suite shows as skipped
 * with the reason, never silently gone.
 */
const postgresql = testDatabaseKinds().find((kind) => kind.name === 'postgresql');
const inCi = (process.env.CI ?? '') !== '' && process.env.CI !== 'false' && process.env.CI !== '0';

if (postgresql !== undefined) {
  describe('gateway on postgresql', () => postgresqlSuite(postgresql));
} else if (inCi) {
  describe('gateway on postgresql', () => {
    it('has TEST_DATABASE_URL to run against', () => {
      throw new Error('CI is set but TEST_DATABASE_URL is not: the PostgreSQL suite cannot run (see .ci/run)');
    });
  });
} else {
  describe.skip('gateway on postgresql (skipped: set TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/postgres)', () => {
    it('migrates the database at startup and is ready', () => {});
  });
}

function postgresqlSuite(kind: TestDatabaseKind) {
  let test: TestDatabase;
  let gateway: RunningGateway;
  let dataDir: string;
  beforeAll(async () => {
    test = await kind.create();
    dataDir = await mkdtemp(join(tmpdir(), 'payout-gateway-pg-'));
    const databaseUrl = 'databaseUrl' in test.target ? test.target.databaseUrl : '';
    gateway = await startGateway(loadGatewayConfig({ PORT: '0', DATA_DIR: dataDir, DATABASE_URL: databaseUrl }), logger);
  });
  afterAll(async () => {
    await gateway?.stop();
    await test?.drop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('migrates the database at startup and is ready', async () => {
    expect(gateway.db.kind).toBe('postgresql');
    expect((await getJson(`${gateway.url}/readyz`)).status).toBe(200);
  });
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { budget, startPayout, type PayoutResult } from '../support/cli-process.ts';
import { freePort, GatewayProcess, killAllGateways } from '../support/gateway-process.ts';

/**
 * Issue 38, section 2, finding 5: `payout payment get` during a partner outage took 23–38 s
 * and printed the status with no word that the partner did not answer (--json neither). A
 * payment the gateway has a record of is answered from it when the partner is down or slow,
 * saying so in text, JSON and GraphQL (freshness), after one attempt cut short, not retries.
 */
let dataDir = '';
let url = '';
let env: Record<string, string> = {};
let paymentId = '';
const payout = (args: string[]): Promise<PayoutResult> => startPayout(args, { ...env, LANG: 'en_US.UTF-8', TZ: 'UTC' }).done;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payout-cli-payment-outage-'));
  const port = String(await freePort());
  env = { DATA_DIR: dataDir, PORT: port };
  url = await GatewayProcess.spawn('npm start', env).ready;
  const run = await payout(['batch', 'run', sampleFile('payroll-1251-semicolon.csv'), '--yes', '--json']);
  expect(run.code, run.stderr).toBe(0);
  const batchId = (JSON.parse(run.stdout) as { batch: { id: string } }).batch.id;
  const found = await payout(['payment', 'search', '--batch', batchId, '--json']);
  paymentId = (JSON.parse(found.stdout) as { payments: Array<{ paymentId: string }> }).payments[0]!.paymentId;
}, budget(4));
afterAll(async () => {
  await killAllGateways();
  await rm(dataDir, { recursive: true, force: true });
});

async function outage(args: string[]): Promise<void> {
  const set = await payout(['sandbox', 'outage', ...args]);
  expect(set.code, set.stderr).toBe(0);
}

async function graphqlFreshness(): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: `{ payment(paymentId: "${paymentId}") { trackingStatus freshness { source liveReadErrorCode } } }` }),
  });
  return ((await response.json()) as { data: { payment: Record<string, unknown> } }).data.payment;
}

describe('payment get while the partner does not answer', () => {
  it('live while the partner answers', { timeout: budget(1) }, async () => {
    const got = await payout(['payment', 'get', paymentId, '--json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout).payment).toMatchObject({ paymentId, status: 'COMPLETED', source: 'LIVE', liveReadErrorCode: null });
  });

  it('the record, said as such, while the partner answers 503', { timeout: budget(3) }, async () => {
    await outage(['--status', '503', '--for', '30m', '--retry-after', '5', '--only', 'read']);
    try {
      const got = await payout(['payment', 'get', paymentId, '--json']);
      expect(got.code, got.stderr).toBe(0);
      expect(JSON.parse(got.stdout).payment).toMatchObject({
        paymentId,
        trackingStatus: 'COMPLETED',
        source: 'RECORDED',
        liveReadErrorCode: expect.any(String),
      });
      const text = await payout(['payment', 'get', paymentId]);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/The Payout API gave no answer about it just now \(.+\): this is the gateway's record as of /);
      expect(await graphqlFreshness()).toMatchObject({
        trackingStatus: 'COMPLETED',
        freshness: { source: 'RECORDED', liveReadErrorCode: expect.any(String) },
      });
    } finally {
      await outage(['--clear']);
    }
  });

  it(
    'the record, said as such, while the partner hangs: one attempt cut short, not the client’s timeouts and retries',
    { timeout: budget(2) },
    async () => {
      await outage(['--hang', '10m', '--then', 'drop', '--only', 'read']);
      try {
        const got = await payout(['payment', 'get', paymentId, '--json']);
        expect(got.code, got.stderr).toBe(0);
        expect(JSON.parse(got.stdout).payment).toMatchObject({
          paymentId,
          trackingStatus: 'COMPLETED',
          source: 'RECORDED',
          liveReadErrorCode: 'network.timeout',
        });
        const search = await payout(['payment', 'search', '--json']);
        expect(search.code, search.stderr).toBe(0);
      } finally {
        await outage(['--clear']);
      }
    },
  );
});

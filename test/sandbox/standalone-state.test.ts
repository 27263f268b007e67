import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signPayment } from '../../src/payout/signature.ts';
import { testPrivateKey, testPublicKeyFile } from '../support/keys.ts';
import { collectLines } from '../support/processes.ts';
import { sbpPayment } from '../support/sandbox.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const AGENT = 'standalone-agent';
const TOKEN = 'standalone-token';

let dataDir: string;
let stateDir: string;
const children = new Set<ChildProcess>();

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payout-standalone-'));
  stateDir = join(dataDir, 'my-sandbox-state');
});
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([...children].map((child) => once(child, 'exit')));
  await rm(dataDir, { recursive: true, force: true });
});

/** `npm run sandbox` (dist/sandbox.js) with only the given environment; resolves with its URL once it listens. */
async function standaloneSandbox(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, ['dist/sandbox.js'], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      SANDBOX_PORT: '0',
      DATA_DIR: dataDir,
      PAYOUT_AGENT_ID: AGENT,
      PAYOUT_API_TOKEN: TOKEN,
      PAYOUT_PUBLIC_KEY_FILE: testPublicKeyFile,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    collectLines(child.stdout!, (line) => {
      lines.push(line);
      const found = /"url":"(http:[^"]+)"/.exec(line);
      if (found !== null) resolve(found[1]!);
    });
    collectLines(child.stderr!, (line) => lines.push(line));
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code} before listening:\n${lines.join('\n')}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

async function call(url: string, method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await request(`${url}/partner/payout/v2/agents/${AGENT}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.body.json()) as any;
}

describe('npm run sandbox keeps its state in SANDBOX_DATA_DIR', () => {
  it('still has the payment and the balance after a restart, with SANDBOX_BALANCE only the starting point', async () => {
    const env = { SANDBOX_DATA_DIR: stateDir, SANDBOX_BALANCE: '3000.00' };
    let sandbox = await standaloneSandbox(env);
    const payload = sbpPayment('sbp_bank_id_success', '500.00');
    await call(sandbox.url, 'PUT', '/payments/standalone-1', payload, {
      signature: signPayment(testPrivateKey, AGENT, 'standalone-1', payload),
    });
    expect((await call(sandbox.url, 'POST', '/payments/standalone-1/execute')).status.value).toBe('COMPLETED');
    expect(await sandbox.stop()).toBe(0);
    expect(existsSync(join(stateDir, 'ledger.ndjson'))).toBe(true);

    sandbox = await standaloneSandbox(env);
    expect((await call(sandbox.url, 'GET', '/payments/standalone-1')).status.value).toBe('COMPLETED');
    expect((await call(sandbox.url, 'GET', '/balance')).balance.value).toBe('2490.00');
    await sandbox.stop();
  });

  it('honours the fault settings from the environment', async () => {
    const sandbox = await standaloneSandbox({
      SANDBOX_DATA_DIR: stateDir,
      SANDBOX_RATE_LIMIT_RATE: '0.5',
      SANDBOX_DROP_BEFORE_RATE: '0.25',
    });
    const response = await request(`${sandbox.url}/_sandbox/faults/rates`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await response.body.json()).toMatchObject({ rateLimitRate: 0.5, dropBeforeRate: 0.25, failAfterRate: 0 });
    await sandbox.stop();
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/db/data-dir-lock.ts';
import { budget, startPayout, type PayoutResult } from '../support/cli-process.ts';
import { freePort, GatewayProcess, killAllGateways } from '../support/gateway-process.ts';

/**
 * Issue 38, section 2, finding 1: `PORT=4310 npm start`, and `payout batch list` from a fresh
 * terminal (PORT unset there) waited and said the embedded database "is in use by pid …; stop
 * it" — advice that stops payday. The data directory knows who holds it and where its gateway
 * answers: the CLI uses that gateway; a holder with no API is named with what to do that keeps
 * it running, never "stop it".
 */
const dirs: string[] = [];
afterEach(async () => {
  await killAllGateways();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'payout-cli-finds-'));
  dirs.push(dir);
  return dir;
};
const payout = (args: string[], env: Record<string, string>): Promise<PayoutResult> =>
  startPayout(args, { ...env, LANG: 'en_US.UTF-8', TZ: 'UTC' }).done;
const lastError = (result: PayoutResult) =>
  (JSON.parse(result.stderr.trim().split('\n').at(-1)!) as { error: Record<string, unknown> }).error;

describe('the CLI finds the gateway that holds the embedded database', () => {
  it('acts through a gateway started on another PORT, naming where it found it', { timeout: budget(3) }, async () => {
    const dataDir = await tempDir();
    const gateway = GatewayProcess.spawn('npm start', { DATA_DIR: dataDir, PORT: String(await freePort()) });
    const url = (await gateway.ready).replace('localhost', '127.0.0.1');
    // This terminal's PORT is another one, where nothing answers (the default 4000, in the issue).
    const terminal = { DATA_DIR: dataDir, PORT: String(await freePort()) };

    const list = await payout(['batch', 'list', '--json'], terminal);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ batches: [], more: false });
    expect(list.stderr).toContain(`the one that holds ${dataDir} answers at ${url}: this command acts through it.`);
    expect(list.stderr).not.toMatch(/stop it|opens the embedded database/);

    const text = await payout(['batch', 'list'], terminal);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('No batches.');
    expect(gateway.alive).toBe(true);
  });

  it('names a holder that serves no API, and what to do that keeps it running: never "stop it"', { timeout: budget(1) }, async () => {
    const dataDir = await tempDir();
    // This test process holds it, as a command paying a batch or a gateway still starting would.
    const lock = lockDataDir(dataDir);
    try {
      const list = await payout(['batch', 'list', '--json'], { DATA_DIR: dataDir, PORT: String(await freePort()) });
      expect(list.code).toBe(2);
      const error = lastError(list);
      expect(error).toMatchObject({ code: 'database.in-use', exitCode: 2 });
      expect(String(error.message)).toContain(`the embedded database in ${dataDir} is held by pid ${process.pid}`);
      expect(String(error.message)).toContain('PAYOUT_GATEWAY_URL');
      expect(String(error.message)).not.toMatch(/stop it/);
    } finally {
      lock.release();
    }
  });
});

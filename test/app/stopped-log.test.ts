import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GatewayProcess, killAllGateways } from '../support/gateway-process.ts';

// Issue 29, finding 9: an operator reading the log of a stopped gateway must see that the
// ordered shutdown finished, not a last line "draining" that looks like a hang.

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payout-stopped-'));
});
afterEach(() => killAllGateways());
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('a gateway stopped with SIGTERM', () => {
  it('logs "stopped" as its last line once the ordered shutdown has finished', async () => {
    const gateway = GatewayProcess.spawn('gateway', { PORT: '0', DATA_DIR: dataDir, SHUTDOWN_DRAIN_MS: '0', LOG_LEVEL: 'info' });
    await gateway.ready;
    gateway.signal('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    const records = gateway
      .logTail(200)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; level: number });
    const messages = records.map((r) => r.msg);
    expect(messages).toContain('shutting down');
    expect(messages.at(-1)).toMatch(/^stopped/);
  });
});

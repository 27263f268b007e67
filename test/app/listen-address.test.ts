import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { startTestGateway } from '../support/gateway.ts';
import { apiKeysEnv } from '../support/keys.ts';

/**
 * Turning keys on (the payday controls' steps do) moves the default listening address from
 * loopback to every interface. The docs say so where the steps are; the gateway says so at start,
 * with the setting that keeps it on this machine.
 */
async function started(env: Record<string, string>) {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, any>);
      done();
    },
  });
  const gw = await startTestGateway({
    env: { GATEWAY_API_KEYS: apiKeysEnv({ op: 'operator' }), ...env },
    logger: createLogger({ level: 'info' }, sink),
  });
  try {
    return { address: (gw.gateway.server.address() as AddressInfo).address, lines };
  } finally {
    await gw.close();
  }
}

describe('where a gateway with API keys listens', () => {
  it('on every interface when HOST is unset, and says so with the way to keep it on loopback', async () => {
    const { address, lines } = await started({});
    expect(address).toBe('0.0.0.0');
    const said = lines.filter((line) => /every interface/.test(String(line.msg)));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: 30, msg: expect.stringContaining('HOST=127.0.0.1') });
  });

  it('on loopback with HOST=127.0.0.1, saying nothing about interfaces', async () => {
    const { address, lines } = await started({ HOST: '127.0.0.1' });
    expect(address).toBe('127.0.0.1');
    expect(lines.filter((line) => /every interface/.test(String(line.msg)))).toEqual([]);
  });
});

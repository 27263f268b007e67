import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardDataVault, SEALED } from '../../src/batch/card-data.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { DataKeyring, dataKeyFrom, loadDataKeyring } from '../../src/crypto/data-keys.ts';
import { open, seal, UnknownDataKeyError } from '../../src/crypto/envelope.ts';
import { maskRecipientFields } from '../../src/log/mask.ts';

const keyText = () => randomBytes(32).toString('base64');
const settings = (over: Partial<Parameters<typeof loadDataKeyring>[0]> = {}) => ({
  key: undefined,
  keyFile: undefined,
  oldKeys: [],
  ...over,
});

function problems(run: () => unknown): Record<string, string> {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return Object.fromEntries(error.problems.map((p) => [p.variable, p.message]));
    throw error;
  }
  return {};
}

describe('card data envelopes', () => {
  const ring = new DataKeyring(dataKeyFrom(randomBytes(32)));

  it('seals with AES-256-GCM under the current key id and opens only in the same context', () => {
    const envelope = seal(ring, Buffer.from('4111111111111111'), 'row-1');
    expect(envelope).toMatchObject({ v: 1, kid: ring.current.id });
    expect(Buffer.from(envelope.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(envelope.tag, 'base64')).toHaveLength(16);
    expect(JSON.stringify(envelope)).not.toContain('4111111111111111');
    expect(open(ring, envelope, 'row-1').toString()).toBe('4111111111111111');
    expect(() => open(ring, envelope, 'row-2')).toThrow(/does not authenticate/);
    const altered = {
      ...envelope,
      ct: Buffer.from(Buffer.from(envelope.ct, 'base64').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64'),
    };
    expect(() => open(ring, altered, 'row-1')).toThrow(/does not authenticate/);
    expect(() => open(ring, { v: 1 }, 'row-1')).toThrow(/malformed/);
  });

  it('never uses a nonce twice, across refills of the nonce pool', () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const envelope = seal(ring, Buffer.from(`row ${i}`), `row-${i}`);
      nonces.add(envelope.iv);
      expect(open(ring, envelope, `row-${i}`).toString()).toBe(`row ${i}`);
    }
    expect(nonces.size).toBe(10_000);
  });

  it('rotates: a new current key seals, the old one (PAYOUT_DATA_KEYS_OLD) still opens, an unknown key id is named', () => {
    const old = keyText();
    const before = loadDataKeyring(settings({ key: old }), { dataDir: '/nonexistent', embedded: false });
    const envelope = seal(before, Buffer.from('x'), 'c');
    const rotated = loadDataKeyring(settings({ key: keyText(), oldKeys: [old] }), { dataDir: '/nonexistent', embedded: false });
    expect(rotated.current.id).not.toBe(envelope.kid);
    expect(seal(rotated, Buffer.from('y'), 'c').kid).toBe(rotated.current.id);
    expect(open(rotated, envelope, 'c').toString()).toBe('x');
    const without = loadDataKeyring(settings({ key: keyText() }), { dataDir: '/nonexistent', embedded: false });
    expect(() => open(without, envelope, 'c')).toThrow(UnknownDataKeyError);
  });

  it('keeps the masked fields beside the sealed ones, and masking a stored row again changes nothing', () => {
    const vault = new CardDataVault(ring, 30);
    const stored = vault.seal({ pan: '2200000000000004', cardholder_name: 'IVAN' }, { batchId: 'b1', line: 2 });
    expect(maskRecipientFields(stored)).toEqual({ pan: '2200********0004', cardholder_name: 'IVAN' });
    expect(maskRecipientFields(maskRecipientFields(stored))).toEqual({ pan: '2200********0004', cardholder_name: 'IVAN' });
    expect(vault.open(stored, { batchId: 'b1', line: 2 })).toEqual({ pan: '2200000000000004', cardholder_name: 'IVAN' });
    const { [SEALED]: _, ...masked } = stored;
    expect(() => vault.open(masked, { batchId: 'b1', line: 2 })).toThrow(/no longer stored/);
  });
});

describe('data key configuration', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'data-keys-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('makes a key file in DATA_DIR (mode 0600) in embedded mode and keeps it across restarts', async () => {
    const first = loadDataKeyring(settings(), { dataDir: dir, embedded: true });
    const file = join(dir, 'keys', 'data-key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64')).toHaveLength(32);
    expect(loadDataKeyring(settings(), { dataDir: dir, embedded: true }).current.id).toBe(first.current.id);
    expect(loadDataKeyring(settings({ keyFile: file }), { dataDir: '/elsewhere', embedded: false }).current.id).toBe(first.current.id);
  });

  it('requires a configured key with a real upstream, and refuses bad ones without echoing them', () => {
    expect(problems(() => loadDataKeyring(settings(), { dataDir: dir, embedded: false })).PAYOUT_DATA_KEY).toMatch(
      /required when PAYOUT_API_URL is set/,
    );
    const short = randomBytes(16).toString('base64');
    const found = problems(() => loadDataKeyring(settings({ key: short }), { dataDir: dir, embedded: false }));
    expect(found.PAYOUT_DATA_KEY).toMatch(/32 bytes/);
    expect(found.PAYOUT_DATA_KEY).not.toContain(short);
    expect(
      problems(() => loadDataKeyring(settings({ key: keyText(), oldKeys: ['nope'] }), { dataDir: dir, embedded: false }))
        .PAYOUT_DATA_KEYS_OLD,
    ).toMatch(/entry 1/);
    expect(
      problems(() => loadDataKeyring(settings({ keyFile: join(dir, 'missing') }), { dataDir: dir, embedded: false })).PAYOUT_DATA_KEY_FILE,
    ).toMatch(/ENOENT/);
  });

  it('reads the variables, with a 30-day retention by default', () => {
    const old = keyText();
    expect(loadGatewayConfig({}).cardData).toEqual({ key: undefined, keyFile: undefined, oldKeys: [], retentionDays: 30 });
    expect(loadGatewayConfig({ PAYOUT_DATA_KEY: 'k', PAYOUT_DATA_KEYS_OLD: ` ${old} ,`, CARD_DATA_RETENTION_DAYS: '7' }).cardData).toEqual({
      key: 'k',
      keyFile: undefined,
      oldKeys: [old],
      retentionDays: 7,
    });
    expect(problems(() => loadGatewayConfig({ CARD_DATA_RETENTION_DAYS: '-1' })).CARD_DATA_RETENTION_DAYS).toBeDefined();
  });
});

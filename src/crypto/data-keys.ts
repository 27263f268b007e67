import { createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/config-error.ts';
import type { DataKeySettings } from '../config/gateway-config.ts';

/** An AES-256 data key and the id stored with everything it encrypts. */
export interface DataKey {
  /** Derived from the key (a hash prefix): old envelopes name the key they need. */
  readonly id: string;
  readonly key: Buffer;
}

/**
 * The current key (which encrypts) and earlier ones (which only decrypt), so a key can be
 * rotated without re-encrypting rows: set the new key, move the old one to
 * PAYOUT_DATA_KEYS_OLD until no row still names it.
 */
export class DataKeyring {
  private readonly byId: Map<string, DataKey>;

  constructor(
    readonly current: DataKey,
    old: DataKey[] = [],
  ) {
    this.byId = new Map([...old, current].map((key) => [key.id, key]));
  }

  find(id: string): DataKey | undefined {
    return this.byId.get(id);
  }

  get ids(): string[] {
    return [...this.byId.keys()];
  }
}

export function dataKeyFrom(bytes: Buffer): DataKey {
  if (bytes.length !== 32) throw new Error('an AES-256 data key must be 32 bytes');
  const id = createHash('sha256').update('payout-gateway data key\0').update(bytes).digest('hex').slice(0, 16);
  return { id, key: bytes };
}

function parseKey(text: string, variable: string, where: string): DataKey {
  const trimmed = text.trim();
  const bytes = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || bytes.length !== 32) {
    // Never echo the value: it is a secret, or part of one.
    throw new ConfigError([{ variable, message: `${where} must be base64 of exactly 32 bytes (e.g. \`openssl rand -base64 32\`)` }]);
  }
  return dataKeyFrom(bytes);
}

function readKeyFile(file: string, variable: string): DataKey {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ variable, message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}` }]);
  }
  return parseKey(text, variable, file);
}

/**
 * The keyring from configuration. Without a configured key, embedded mode (the local
 * sandbox) makes one in DATA_DIR/keys/data-key (mode 0600) once, like the development RSA
 * pair; with a real upstream a key must be configured, so that every gateway and worker
 * sharing the database shares it too.
 */
export function loadDataKeyring(settings: DataKeySettings, options: { dataDir: string; embedded: boolean }): DataKeyring {
  if (settings.key !== undefined && settings.keyFile !== undefined) {
    throw new ConfigError([{ variable: 'PAYOUT_DATA_KEY', message: 'set PAYOUT_DATA_KEY or PAYOUT_DATA_KEY_FILE, not both' }]);
  }
  const old = settings.oldKeys.map((text, index) => parseKey(text, 'PAYOUT_DATA_KEYS_OLD', `entry ${index + 1}`));
  let current: DataKey;
  if (settings.key !== undefined) current = parseKey(settings.key, 'PAYOUT_DATA_KEY', 'PAYOUT_DATA_KEY');
  else if (settings.keyFile !== undefined) current = readKeyFile(settings.keyFile, 'PAYOUT_DATA_KEY_FILE');
  else if (options.embedded) current = readKeyFile(ensureDevDataKey(options.dataDir), 'DATA_DIR');
  else {
    throw new ConfigError([
      {
        variable: 'PAYOUT_DATA_KEY',
        message: 'PAYOUT_DATA_KEY or PAYOUT_DATA_KEY_FILE is required when PAYOUT_API_URL is set (it encrypts card data at rest)',
      },
    ]);
  }
  return new DataKeyring(current, old);
}

/**
 * DATA_DIR/keys/data-key, made once. Written to a private temp file and linked into place,
 * so processes starting together agree on one key and none reads a half-written file.
 */
export function ensureDevDataKey(dataDir: string): string {
  const dir = join(dataDir, 'keys');
  const file = join(dir, 'data-key');
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.data-key-${process.pid}-${randomBytes(4).toString('hex')}`);
  writeFileSync(temp, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
  return file;
}

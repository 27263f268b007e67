import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.ts';

export interface KeyPairFiles {
  privateKeyFile: string;
  publicKeyFile: string;
}

/**
 * The RSA 2048 pair used when no real partner key is configured: made once under
 * DATA_DIR so the embedded and the standalone sandbox agree across restarts.
 */
export function ensureDevKeyPair(dataDir: string): KeyPairFiles {
  const dir = join(dataDir, 'keys');
  const files = { privateKeyFile: join(dir, 'dev-private.pem'), publicKeyFile: join(dir, 'dev-public.pem') };
  if (existsSync(files.privateKeyFile) && existsSync(files.publicKeyFile)) return files;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  writeFileSync(files.privateKeyFile, privateKey, { mode: 0o600 });
  writeFileSync(files.publicKeyFile, publicKey, { mode: 0o644 });
  return files;
}

/** Reads a PEM key file and checks it is the RSA 2048 key the spec requires. */
export function readRsaKey(file: string, variable: string, kind: 'private' | 'public'): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ variable, message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}` }]);
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new ConfigError([{ variable, message: `${file} is not a PEM ${kind} key` }]);
  }
  if (kind === 'public' && pem.includes('PRIVATE KEY')) {
    throw new ConfigError([{ variable, message: `${file} holds a private key; the sandbox needs only the public one` }]);
  }
  if (key.asymmetricKeyType !== 'rsa' || key.asymmetricKeyDetails?.modulusLength !== 2048) {
    throw new ConfigError([{ variable, message: `${file} must be an RSA key of exactly 2048 bits` }]);
  }
  return pem;
}

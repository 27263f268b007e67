import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Role } from '../../src/auth/roles.ts';

/** A committed RSA 2048 pair used only by tests. */
export const testPrivateKeyFile = new URL('../fixtures/test-private.pem', import.meta.url).pathname;
export const testPublicKeyFile = new URL('../fixtures/test-public.pem', import.meta.url).pathname;
export const testPrivateKey = readFileSync(testPrivateKeyFile, 'utf8');
export const testPublicKey = readFileSync(testPublicKeyFile, 'utf8');

/**
 * A test API key, from the short name a test calls it by: long and random-looking enough
 * for GATEWAY_API_KEYS (32 characters and more), the same for the same name in every run.
 */
export function apiKey(name: string): string {
  return `${name}-${createHash('sha256').update(`payout-gateway test key ${name}`).digest('base64url')}`;
}

/** GATEWAY_API_KEYS of test keys by short name (`{ op: 'operator' }`), in the KEY:ROLE form. */
export function apiKeysEnv(roles: Record<string, Role>): string {
  return Object.entries(roles)
    .map(([name, role]) => `${apiKey(name)}:${role}`)
    .join(',');
}

/** The same keys named (NAME:ROLE:KEY): each shows as `key:NAME`. */
export function namedApiKeysEnv(roles: Record<string, Role>): string {
  return Object.entries(roles)
    .map(([name, role]) => `${name}:${role}:${apiKey(name)}`)
    .join(',');
}

import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * Standard Webhooks signing (standardwebhooks.com): the secret is `whsec_` and base64 of
 * random bytes; a signature is `v1,` and base64 HMAC-SHA256 of `id.timestamp.body` under
 * those bytes; several, space separated, while a rotation's overlap lasts.
 */
const PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/**
 * A secret ready to sign with. Made once per secret, not per event: HMAC under raw key bytes
 * builds a key object each time, which was a sixth of delivery's CPU (docs/internals/benchmarks/outbound-events.md).
 */
export type SigningKey = KeyObject;

export function signingKeys(secrets: readonly string[]): SigningKey[] {
  return secrets.map((secret) => createSecretKey(keyOf(secret)));
}

export function signature(key: SigningKey | string, id: string, timestampSeconds: number, body: string): string {
  return (
    'v1,' +
    createHmac('sha256', typeof key === 'string' ? keyOf(key) : key)
      .update(`${id}.${timestampSeconds}.${body}`)
      .digest('base64')
  );
}

/** The webhook-signature header: one signature per secret still valid, newest first. */
export function signatureHeader(keys: readonly SigningKey[], id: string, timestampSeconds: number, body: string): string {
  return keys.map((key) => signature(key, id, timestampSeconds, body)).join(' ');
}

/** Whether any v1 signature of the header is the secret's (for the sample receiver's tests and the docs). */
export function hasValidSignature(secret: string, header: string, id: string, timestampSeconds: number, body: string): boolean {
  const expected = Buffer.from(signature(secret, id, timestampSeconds, body));
  return header.split(' ').some((part) => {
    const given = Buffer.from(part);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

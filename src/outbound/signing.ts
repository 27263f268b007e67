import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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

export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return 'v1,' + createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

/** The webhook-signature header: one signature per secret still valid, newest first. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signature(secret, id, timestampSeconds, body)).join(' ');
}

/** Whether any v1 signature of the header is the secret's (for the sample receiver's tests and the docs). */
export function hasValidSignature(secret: string, header: string, id: string, timestampSeconds: number, body: string): boolean {
  const expected = Buffer.from(signature(secret, id, timestampSeconds, body));
  return header.split(' ').some((part) => {
    const given = Buffer.from(part);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

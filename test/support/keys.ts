import { readFileSync } from 'node:fs';

/** A committed RSA 2048 pair used only by tests. */
export const testPrivateKeyFile = new URL('../fixtures/test-private.pem', import.meta.url).pathname;
export const testPublicKeyFile = new URL('../fixtures/test-public.pem', import.meta.url).pathname;
export const testPrivateKey = readFileSync(testPrivateKeyFile, 'utf8');
export const testPublicKey = readFileSync(testPublicKeyFile, 'utf8');

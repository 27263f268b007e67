import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DataKeyring, dataKeyFrom } from '../../src/crypto/data-keys.ts';
import { PayeeKeys } from '../../src/payees/payee-keys.ts';

// The payee key is computed by hand from two SHA-256 calls (speed): it must stay byte for
// byte the HMAC-SHA256 that keys stored by earlier versions were made with.
describe('payee keys', () => {
  const key = randomBytes(32);
  const derived = createHmac('sha256', key).update('payout-gateway payee key v1').digest();
  const hmac = (text: string) => createHmac('sha256', derived).update(text, 'utf8').digest('hex').slice(0, 32);
  const keys = new PayeeKeys(new DataKeyring(dataKeyFrom(key)));

  it('is HMAC-SHA256 of the payee text under the derived key, for any text', () => {
    const texts = [
      '',
      'a',
      'bank-card-russia-fio\u0000pan\u00004100000000000019\u0000lastname\u0000ivanov',
      'Ёжик «ёлка» 😀',
      'x'.repeat(63),
      'y'.repeat(64),
      'z'.repeat(5000),
      'ё'.repeat(700),
    ];
    for (const text of texts) expect(keys.of(text), `${text.length} characters`).toBe(hmac(text));
    // After a long text the buffer has grown; short ones still come out right.
    expect(keys.of('b')).toBe(hmac('b'));
    expect(keys.candidates('c')).toEqual([hmac('c')]);
  });
});

import { createHmac, hash } from 'node:crypto';
import type { DataKeyring } from '../crypto/data-keys.ts';

/**
 * A payee (batch/import/payee-key.ts's text) or an account (payee-marks.ts's) compared
 * across batches and payments through a keyed hash (HMAC-SHA256 under a key derived from the
 * card-data key), so the database holds no one's card or account in clear and a stolen copy
 * of it cannot be searched for a known card. 128 bits are kept: far from any collision at
 * payroll sizes. Every key of the keyring gives a candidate, so rows hashed before a key
 * rotation are still found while the old key is kept for decryption.
 */
export class PayeeKeys {
  private readonly current: Hmac;
  private readonly all: Hmac[];

  constructor(keyring: DataKeyring) {
    const derive = (key: Buffer) => new Hmac(createHmac('sha256', key).update('payout-gateway payee key v1').digest());
    this.current = derive(keyring.current.key);
    this.all = [this.current, ...keyring.ids.filter((id) => id !== keyring.current.id).map((id) => derive(keyring.find(id)!.key))];
  }

  /** The key stored with a row. */
  of(payee: string): string {
    return this.current.hex32(payee);
  }

  /** The keys an earlier row of this payee may be stored under (the current one first). */
  candidates(payee: string): string[] {
    return this.all.length === 1 ? [this.of(payee)] : this.all.map((key) => key.hex32(payee));
  }
}

/**
 * HMAC-SHA256 (RFC 2104) as two one-shot SHA-256 calls over buffers that hold the padded key
 * once: the same bytes as createHmac, which builds a key object and a native Hmac per row.
 * Measured alone on payee texts, 1.1 µs a row of CPU against 1.7 µs (a Buffer for the
 * inner digest instead of a string: 2.1 µs). The first 16 bytes, as hex.
 */
class Hmac {
  /** The key XOR ipad, then room for the text. */
  private inner = Buffer.alloc(BLOCK + 1024);
  /** The key XOR opad, then the inner digest. */
  private readonly outer = Buffer.alloc(BLOCK + 32);

  constructor(key: Buffer) {
    // Keys of 32 bytes (HMAC-SHA256 outputs): shorter than a block, used as they are.
    for (let i = 0; i < BLOCK; i++) {
      const byte = key[i] ?? 0;
      this.inner[i] = byte ^ 0x36;
      this.outer[i] = byte ^ 0x5c;
    }
  }

  hex32(text: string): string {
    // At most 3 bytes of UTF-8 per UTF-16 unit: room without measuring the text.
    if (BLOCK + text.length * 3 > this.inner.length) {
      const grown = Buffer.alloc(BLOCK + text.length * 3);
      this.inner.copy(grown, 0, 0, BLOCK);
      this.inner = grown;
    }
    const length = BLOCK + this.inner.write(text, BLOCK, 'utf8');
    // The inner digest as a one-byte string ('binary' is latin1), not a Buffer: no native allocation per row.
    this.outer.write(hash('sha256', this.inner.subarray(0, length), 'binary'), BLOCK, 'binary');
    return hash('sha256', this.outer, 'hex').slice(0, 32);
  }
}

const BLOCK = 64;

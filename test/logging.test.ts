import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log/logger.ts';
import { maskPan, maskRecipientFields } from '../src/log/mask.ts';

describe('masking', () => {
  it('keeps the first 4 and last 4 digits of a card number', () => {
    expect(maskPan('2200000000000004')).toBe('2200********0004');
    expect(maskPan('2200 0000 0000 0004')).toBe('2200********0004');
  });

  it('masks card numbers and accounts in recipient fields, keeps names', () => {
    expect(maskRecipientFields({ pan: '2200000000000004', account: '79001234567', lastName: 'Ivanov' })).toEqual({
      pan: '2200********0004',
      account: '*******4567',
      lastName: 'Ivanov',
    });
  });
});

describe('logger redaction', () => {
  it('never writes tokens, signatures or card numbers', () => {
    let output = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        output += String(chunk);
        done();
      },
    });
    const logger = createLogger({ level: 'info' }, sink);
    logger.info({
      headers: { authorization: 'Bearer top-secret-token', signature: 'c2lnbmF0dXJl' },
      token: 'top-secret-token',
      recipient: { fields: { pan: '2200000000000004' } },
      payment: { pan: '2200000000000004', privateKey: '-----BEGIN PRIVATE KEY-----' },
    });
    expect(output).not.toMatch(/top-secret-token|c2lnbmF0dXJl|2200000000000004|BEGIN PRIVATE/);
    expect(output).toContain('[redacted]');
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PaymentPayload, Webhook } from '../../src/payout/models.ts';
import {
  paymentSignatureString,
  signPayment,
  signWebhook,
  verifyPaymentSignature,
  verifyWebhookSignature,
} from '../../src/payout/signature.ts';

const privateKey = readFileSync(new URL('../fixtures/test-private.pem', import.meta.url), 'utf8');
const publicKey = readFileSync(new URL('../fixtures/test-public.pem', import.meta.url), 'utf8');

const cardPayload: PaymentPayload = {
  amount: { value: '1234.50', currency: 'RUB' },
  recipientDetails: {
    providerCode: 'bank-card-russia-fio',
    // Deliberately not in name order: the signer must sort.
    fields: { pan: '2200000000000004', lastName: 'Ivanov', middleName: 'Petrovich', firstName: 'Ivan' },
  },
};
const sbpPayload: PaymentPayload = {
  amount: { value: '10.00', currency: 'RUB' },
  recipientDetails: {
    providerCode: 'sbp-b2c',
    fields: { description: 'Salary', bankId: 'sbp_bank_id_success', account: '79001234567' },
  },
  webhookUrl: 'https://example.test/hook',
};

// Expected values computed independently with `openssl dgst -sha256 -sign test-private.pem | base64`.
const vectors = [
  {
    paymentId: 'pay-1',
    payload: cardPayload,
    string: 'agent-1|pay-1|1234.50|RUB|bank-card-russia-fio|Ivan|Ivanov|Petrovich|2200000000000004',
    signature:
      'Wc7B7SVKEu7+N9tullQQJOiuYV7t1MN8Oknd/UmPlfguJ4C7OA7DbXn5Ek428LZu0W/uR1EeXfMJFVwdadGxJxcX5M8U35vNKOsu68D37mckFeBMLrUFfRBXmWLHsWxmolDdR6Ot8fctZ3+V8Bx5fRV460juFQUr81/6rkw+jg0NV96a4OMX25L+FRUCYFDkASBy3RsrntFXoXBhDssCjOSNGOoz4Y2m5nPc9MW2vGcqg6cr0QjxyLXS+grdmVbPozg3b+ffQEDkYtTgtDcJta+akjkjkwLVvVjrg4ttMxy4LG5v40FSjnI3sjq0wEK0LgjJ9VRgO9xGrh0km0OeyA==',
  },
  {
    paymentId: 'pay-2',
    payload: sbpPayload,
    string: 'agent-1|pay-2|10.00|RUB|sbp-b2c|79001234567|sbp_bank_id_success|Salary',
    signature:
      'qGoTQrD+EUAew71djBWNqSMmRrNv9x2+bjQiizuOcBqrch3t5T9Jf/pguZRJZlWWl2ksyQnZlUhEEFkdlyf1iSnotbOo+fYWsfzqBkl/3o1UYt28qkWe+RBMBkT7RTGZBWmfm44mOu4KqjP0HPBAwnZI+HOK5IPHQkeS3j1JrgOeWaAYYW3+S/Y5F1mdN2mmT3oOWu6JDUYfSsGKHoQI/2wfesD0SgLSc0Xe1nB/RPuUPQ722XRaSxetMNhtXFlcZ5hPKdmFVVuCJDFLwLTwLuP+EgQmrRdgdR0dV/F3Kju5PCBONZ+/AktGKiKIeGbqpHjAaOkNt9RxCBax4h8QiQ==',
  },
];

describe('payment creation signature', () => {
  it.each(vectors)('builds the signed string for $paymentId with field values in name order', (vector) => {
    expect(paymentSignatureString('agent-1', vector.paymentId, vector.payload)).toBe(vector.string);
  });

  it.each(vectors)('signs $paymentId exactly as openssl does (PKCS#1 v1.5 is deterministic)', (vector) => {
    expect(signPayment(privateKey, 'agent-1', vector.paymentId, vector.payload)).toBe(vector.signature);
  });

  it.each(vectors)('verifies the signature of $paymentId with the public key', (vector) => {
    expect(verifyPaymentSignature(publicKey, 'agent-1', vector.paymentId, vector.payload, vector.signature)).toBe(true);
  });

  it('rejects a signature over another amount, paymentId or agent', () => {
    const { signature } = vectors[0]!;
    const otherAmount = { ...cardPayload, amount: { value: '1234.51', currency: 'RUB' as const } };
    expect(verifyPaymentSignature(publicKey, 'agent-1', 'pay-1', otherAmount, signature)).toBe(false);
    expect(verifyPaymentSignature(publicKey, 'agent-1', 'pay-9', cardPayload, signature)).toBe(false);
    expect(verifyPaymentSignature(publicKey, 'agent-2', 'pay-1', cardPayload, signature)).toBe(false);
  });

  it('rejects garbage instead of throwing', () => {
    expect(verifyPaymentSignature(publicKey, 'agent-1', 'pay-1', cardPayload, 'not base64!')).toBe(false);
    expect(verifyPaymentSignature(publicKey, 'agent-1', 'pay-1', cardPayload, 'AAAA')).toBe(false);
  });
});

describe('webhook signature', () => {
  const webhook: Webhook = {
    agentId: 'agent-1',
    paymentId: 'pay-1',
    status: { value: 'COMPLETED', changedDateTime: '2026-11-22T10:00:00+03:00' },
    amount: { value: '1234.50', currency: 'RUB' },
  };
  // `printf 'agent-1|pay-1|COMPLETED|1234.50|RUB' | openssl dgst -sha256 -hmac webhook-secret`
  const hex = 'f3d2bf6e68fb9ba04cadc6eead520ac1d81100c1f9a0bd9f28c257475e23b103';
  const base64 = '89K/bmj7m6BMrcburVIKwdgRAMH5oL2fKMJXR14jsQM=';

  it('is HMAC-SHA256 of agentId|paymentId|status|amount|currency in lowercase hex', () => {
    expect(signWebhook('webhook-secret', webhook)).toBe(hex);
  });

  it('accepts hex in either case and Base64', () => {
    expect(verifyWebhookSignature('webhook-secret', webhook, hex)).toBe(true);
    expect(verifyWebhookSignature('webhook-secret', webhook, hex.toUpperCase())).toBe(true);
    expect(verifyWebhookSignature('webhook-secret', webhook, base64)).toBe(true);
  });

  it('refuses a missing signature, another secret or a changed status', () => {
    expect(verifyWebhookSignature('webhook-secret', webhook, undefined)).toBe(false);
    expect(verifyWebhookSignature('other-secret', webhook, hex)).toBe(false);
    const failed = { ...webhook, status: { ...webhook.status, value: 'FAILED' as const } };
    expect(verifyWebhookSignature('webhook-secret', failed, hex)).toBe(false);
    expect(verifyWebhookSignature('webhook-secret', webhook, hex.slice(0, 63))).toBe(false);
  });
});

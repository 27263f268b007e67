import { createHmac, createSign, createVerify, sign, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { PaymentPayload, Webhook } from './models.ts';

/**
 * The string signed for payment creation (spec, Authentication 2):
 * `{agentId}|{paymentId}|{amount.value}|{amount.currency}|{providerCode}|{field values}`,
 * field values in the order of their names. Names are compared by UTF-16 code unit,
 * the plain sort most signers use; the spec's field names are all ASCII.
 */
export function paymentSignatureString(agentId: string, paymentId: string, payload: PaymentPayload): string {
  const { amount, recipientDetails } = payload;
  const names = Object.keys(recipientDetails.fields).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [
    agentId,
    paymentId,
    amount.value,
    amount.currency,
    recipientDetails.providerCode,
    ...names.map((name) => recipientDetails.fields[name]),
  ].join('|');
}

/** SHA256withRSA (PKCS#1 v1.5, deterministic), Base64. */
export function signPayment(privateKey: string | KeyObject, agentId: string, paymentId: string, payload: PaymentPayload): string {
  return createSign('sha256')
    .update(paymentSignatureString(agentId, paymentId, payload), 'utf8')
    .sign(privateKey, 'base64');
}

/**
 * The same signature made on libuv's thread pool: an RSA-2048 signature costs 0.5–0.7 ms
 * of CPU, which at hundreds of payments a second would otherwise stall the event loop.
 * The key is a KeyObject made once; parsing the PEM on every call tripled the cost.
 */
export function signPaymentAsync(privateKey: KeyObject, agentId: string, paymentId: string, payload: PaymentPayload): Promise<string> {
  const data = Buffer.from(paymentSignatureString(agentId, paymentId, payload), 'utf8');
  return new Promise((resolve, reject) => {
    sign('sha256', data, privateKey, (error, signature) => (error === null ? resolve(signature.toString('base64')) : reject(error)));
  });
}

export function verifyPaymentSignature(
  publicKeyPem: string,
  agentId: string,
  paymentId: string,
  payload: PaymentPayload,
  signature: string,
): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  try {
    return createVerify('sha256')
      .update(paymentSignatureString(agentId, paymentId, payload), 'utf8')
      .verify(publicKeyPem, signature, 'base64');
  } catch {
    return false;
  }
}

/** `{agentId}|{paymentId}|{status.value}|{amount.value}|{amount.currency}` (spec, Authentication 3). */
export function webhookSignatureString(webhook: Webhook): string {
  return [webhook.agentId, webhook.paymentId, webhook.status.value, webhook.amount.value, webhook.amount.currency].join('|');
}

/**
 * HMAC-SHA256 keyed by the shared webhook secret. The spec leaves the encoding open;
 * this project sends lowercase hex.
 */
export function signWebhook(secret: string, webhook: Webhook): string {
  return createHmac('sha256', secret).update(webhookSignatureString(webhook), 'utf8').digest('hex');
}

/** Accepts hex (any case) or Base64, compared in constant time. */
export function verifyWebhookSignature(secret: string, webhook: Webhook, signature: string | undefined): boolean {
  if (signature === undefined) return false;
  const expected = createHmac('sha256', secret).update(webhookSignatureString(webhook), 'utf8').digest();
  const trimmed = signature.trim();
  const given = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : /^[A-Za-z0-9+/]{43}=$/.test(trimmed)
      ? Buffer.from(trimmed, 'base64')
      : undefined;
  return given !== undefined && given.length === expected.length && timingSafeEqual(given, expected);
}

/** Already masked by maskPan: masking again must not lose the 4+4 digits shown. */
const MASKED_PAN = /^\d{4}\*+\d{4}$/;

/** Card numbers keep the first 4 and last 4 digits, the rest becomes `*`. */
export function maskPan(pan: string): string {
  if (MASKED_PAN.test(pan)) return pan;
  const digits = pan.replace(/\D/g, '');
  if (digits.length < 12) return '*'.repeat(digits.length);
  return `${digits.slice(0, 4)}${'*'.repeat(digits.length - 8)}${digits.slice(-4)}`;
}

/** Card tokens and phone numbers: the last 4 characters identify enough. */
export function maskTail(value: string): string {
  if (value.length <= 4) return '*'.repeat(value.length);
  return `${'*'.repeat(value.length - 4)}${value.slice(-4)}`;
}

/**
 * Recipient fields as they may be stored, logged or shown: card numbers and accounts
 * masked. Anything that is not a plain string field (a stored row's sealed envelope under
 * `$sealed`) is left out, so stored rows can be passed as they are.
 */
export function maskRecipientFields(fields: Record<string, unknown>): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string' || key.startsWith('$')) continue;
    if (key === 'pan') masked[key] = maskPan(value);
    else if (key === 'account') masked[key] = maskTail(value);
    else masked[key] = value;
  }
  return masked;
}

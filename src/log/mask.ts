/** Card numbers keep the first 4 and last 4 digits, the rest becomes `*`. */
export function maskPan(pan: string): string {
  const digits = pan.replace(/\D/g, '');
  if (digits.length < 12) return '*'.repeat(digits.length);
  return `${digits.slice(0, 4)}${'*'.repeat(digits.length - 8)}${digits.slice(-4)}`;
}

/** Card tokens and phone numbers: the last 4 characters identify enough. */
export function maskTail(value: string): string {
  if (value.length <= 4) return '*'.repeat(value.length);
  return `${'*'.repeat(value.length - 4)}${value.slice(-4)}`;
}

/** Recipient fields as they may be stored, logged or shown: card numbers and accounts masked. */
export function maskRecipientFields(fields: Record<string, string>): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'pan') masked[key] = maskPan(value);
    else if (key === 'account') masked[key] = maskTail(value);
    else masked[key] = value;
  }
  return masked;
}

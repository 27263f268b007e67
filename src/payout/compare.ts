import type { Payment, PaymentPayload } from './models.ts';

/**
 * What differs between the payment we meant to create and the one the upstream holds
 * under the same paymentId. Empty means "the same payment": safe to treat as ours.
 */
export function recipientDifferences(intended: PaymentPayload, existing: Payment): string[] {
  const differences: string[] = [];
  if (intended.amount.value !== existing.amount.value || intended.amount.currency !== existing.amount.currency) {
    differences.push('amount');
  }
  const ours = intended.recipientDetails;
  const theirs = existing.recipientDetails;
  if (ours.providerCode !== theirs.providerCode) differences.push('provider');
  const names = new Set([...Object.keys(ours.fields), ...Object.keys(theirs.fields)]);
  for (const name of [...names].sort()) {
    if (!sameFieldValue(ours.fields[name], theirs.fields[name])) differences.push(`recipient field ${name}`);
  }
  return differences;
}

/** An upstream may echo card numbers masked with `*`; a masked echo matches where it shows digits. */
function sameFieldValue(ours: string | undefined, theirs: string | undefined): boolean {
  if (ours === theirs) return true;
  if (ours === undefined || theirs === undefined || ours.length !== theirs.length || !theirs.includes('*')) {
    return false;
  }
  return [...theirs].every((char, index) => char === '*' || char === ours[index]);
}

/** A payment's place in the order: when the gateway recorded it, then its id (both descending). */
export interface SearchPosition {
  createdAt: Date;
  paymentId: string;
}

/** Opaque to callers; stable across releases as long as the order is. */
export function encodePosition(position: SearchPosition): string {
  return Buffer.from(`${position.createdAt.toISOString()}|${position.paymentId}`, 'utf8').toString('base64url');
}

export function decodePosition(cursor: string): SearchPosition | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  if (bar < 0) return undefined;
  const createdAt = new Date(text.slice(0, bar));
  const paymentId = text.slice(bar + 1);
  if (Number.isNaN(createdAt.getTime()) || paymentId === '' || paymentId.length > 36) return undefined;
  return { createdAt, paymentId };
}

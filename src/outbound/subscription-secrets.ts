import type { DataKeyring } from '../crypto/data-keys.ts';
import { open, type Envelope } from '../crypto/envelope.ts';

/** The context a subscription's signing secret is sealed under: a secret moved to another subscription does not open. */
export const secretContext = (id: string) => `event-subscription:${id}`;

/** A subscription's signing secrets, opened: the current one, then the one before a rotation while it still signs. */
export function openSecrets(keyring: DataKeyring, id: string, secret: unknown, previous: unknown): string[] {
  const opened = [open(keyring, secret as Envelope, secretContext(id)).toString('utf8')];
  if (previous !== null && previous !== undefined) opened.push(open(keyring, previous as Envelope, secretContext(id)).toString('utf8'));
  return opened;
}

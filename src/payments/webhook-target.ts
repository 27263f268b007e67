import { isIP } from 'node:net';
import { isInternal, isLoopback, resolveWithDns, type ResolveAll } from '../lib/internal-addresses.ts';

export type { ResolveAll };

export interface WebhookTargetPolicy {
  /** GATEWAY_WEBHOOK_ALLOW_PRIVATE: private, loopback and link-local targets are accepted. */
  allowPrivate: boolean;
  /** The upstream is the embedded sandbox, which posts from this process: plain http may reach loopback. */
  embeddedUpstream: boolean;
  /** The gateway's own webhook endpoint, always a fit target. */
  ownWebhookUrl?: () => string | undefined;
  resolve?: ResolveAll;
}

/**
 * Why a webhookUrl is refused, as a message for the caller, or undefined when it may be
 * used. The name is resolved here, at creation; whoever delivers resolves it again later,
 * so this stops the plain cases and the reader of docs/internals/security/webhook-targets.md knows the rest.
 */
export async function webhookTargetProblem(raw: string, policy: WebhookTargetPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute https URL';
  }
  if (policy.ownWebhookUrl?.() === raw) return undefined;
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  // WHATWG URL has already turned 0x7f.1, 2130706433 and friends into dotted IPv4.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const loopback = isLoopback(hostname);
  if (url.protocol !== 'https:') {
    if (url.protocol !== 'http:') return 'must be an https URL';
    if (!(policy.embeddedUpstream && loopback)) {
      return policy.embeddedUpstream
        ? 'must be an https URL (plain http only to localhost with the embedded sandbox)'
        : 'must be an https URL';
    }
  }
  if (policy.allowPrivate) return undefined;
  const refused = `may not point at a private, loopback, link-local or metadata address (${hostname}); set GATEWAY_WEBHOOK_ALLOW_PRIVATE=true to allow it`;
  if (loopback) return refused;
  if (isIP(hostname) !== 0) return isInternal(hostname) ? refused : undefined;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await (policy.resolve ?? resolveWithDns)(hostname);
  } catch {
    return `host ${hostname} could not be resolved`;
  }
  if (addresses.length === 0) return `host ${hostname} could not be resolved`;
  const inside = addresses.find((a) => isInternal(a.address));
  return inside === undefined
    ? undefined
    : `may not point at a private, loopback, link-local or metadata address (${hostname} resolves to ${inside.address}); set GATEWAY_WEBHOOK_ALLOW_PRIVATE=true to allow it`;
}

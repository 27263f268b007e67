import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { isInternal, isLoopback, resolveWithDns, type ResolveAll } from '../../lib/internal-addresses.ts';
import { GatewayError } from '../../lib/gateway-error.ts';

/** Where subscriptions may point: the webhookUrl rules (https, public), checked at creation and at every delivery. */
export interface EndpointPolicy {
  /** EVENTS_ALLOW_LOCAL_ENDPOINTS: plain http to loopback, and loopback or private addresses, for local development. */
  allowLocal: boolean;
  /** Tests give a resolver; production asks DNS. */
  resolve?: ResolveAll;
}

const SETTING = 'EVENTS_ALLOW_LOCAL_ENDPOINTS=true';

/** Why an endpoint URL is refused, in words for the admin, or undefined when it may be used. */
export async function endpointProblem(raw: string, policy: EndpointPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw.slice(0, 80)}" is not an absolute URL: give one such as https://hr.example.com/payout-events`;
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password: the signature authenticates the gateway';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (url.protocol !== 'https:') {
    if (url.protocol !== 'http:') return 'must be an https URL';
    if (!(policy.allowLocal && isLoopback(hostname))) {
      return `must be an https URL (plain http only to localhost, with ${SETTING})`;
    }
  }
  if (policy.allowLocal) return undefined;
  if (isLoopback(hostname) || (isIP(hostname) !== 0 && isInternal(hostname))) return refusedAddress(hostname, hostname);
  if (isIP(hostname) !== 0) return undefined;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await (policy.resolve ?? resolveWithDns)(hostname);
  } catch {
    return `host ${hostname} could not be resolved`;
  }
  const inside = addresses.find((a) => isInternal(a.address));
  if (addresses.length === 0) return `host ${hostname} could not be resolved`;
  return inside === undefined ? undefined : refusedAddress(hostname, inside.address);
}

function refusedAddress(hostname: string, address: string): string {
  const resolves = hostname === address ? hostname : `${hostname} resolves to ${address}`;
  return `may not point at a private, loopback, link-local or metadata address (${resolves}); ${SETTING} allows it for local development`;
}

/** A refused address met at delivery: the name now resolves inside (DNS rebinding). */
export class RefusedTargetError extends GatewayError {
  readonly code = 'EVENT_TARGET_REFUSED';
  readonly kind = 'input';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The connection's own name lookup, so the address checked is the address connected to:
 * a name that resolved to a public address when the subscription was made and resolves
 * inside now is refused before any byte is sent.
 */
export function guardedLookup(policy: EndpointPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    const answer = (addresses: LookupAddress[]) => {
      const inside = policy.allowLocal ? undefined : addresses.find((a) => isInternal(a.address));
      if (inside !== undefined) {
        callback(new RefusedTargetError(refusedAddress(hostname, inside.address)), '');
      } else if (addresses.length === 0) {
        callback(Object.assign(new Error(`host ${hostname} could not be resolved`), { code: 'ENOTFOUND' }), '');
      } else if (options.all === true) {
        callback(null, addresses);
      } else {
        callback(null, addresses[0]!.address, addresses[0]!.family);
      }
    };
    if (policy.resolve !== undefined) {
      policy.resolve(hostname).then(
        (list) => answer(list.map((a) => ({ address: a.address, family: isIP(a.address) }))),
        (error: NodeJS.ErrnoException) => callback(error, ''),
      );
      return;
    }
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error === null ? answer(addresses) : callback(error, '')));
  };
}

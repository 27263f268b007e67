import { PayoutNetworkError, type NetworkPhase } from './errors.ts';

/** How a request that got no answer failed, for PayoutClient (client.ts): in which phase, and whether a byte of it was sent. */
const timeoutPhases: Record<string, NetworkPhase> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};
/**
 * Failures before a request byte was written: name resolution, the TCP connect, and the TLS
 * handshake (the request goes out only over an established, verified connection).
 */
const notSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

export function toNetworkError(error: unknown, phase: NetworkPhase, what: { method: string; path: string }): PayoutNetworkError {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code in timeoutPhases) {
    return new PayoutNetworkError(timeoutPhases[code]!, true, what, { cause: error });
  }
  if (typeof code === 'string' && notSentCodes.has(code)) {
    return new PayoutNetworkError('connect', false, what, { cause: error });
  }
  return new PayoutNetworkError(phase === 'connect' ? 'socket' : phase, false, what, { cause: error });
}

import { GatewayError, type ErrorKind } from '../lib/gateway-error.ts';

/** Why an admin's request about API keys was refused: stable codes (docs/api/error-codes.md). */
export const apiKeyErrorMeanings = {
  API_KEY_NOT_FOUND: 'No API key has this id.',
  API_KEY_NAME_TAKEN:
    'Another key that is not revoked, or a key of GATEWAY_API_KEYS, has this name: a name is one identity, so choose another or revoke the other first.',
  API_KEY_NAME_INVALID: 'A key name is a letter, then up to 39 letters, digits, dots, dashes or underscores.',
  API_KEY_EXPIRY_INVALID: 'expiresAt is in the past.',
  API_KEY_OWNER_UNKNOWN:
    'The owner is no person the identity provider has named here: they must sign in (or call with a token) once before a key is issued to them.',
  API_KEYS_NEED_AN_ADMIN_KEY:
    'This gateway has no GATEWAY_API_KEYS and no GATEWAY_OIDC_ISSUER: it serves anonymous local use, which takes no keys. Set GATEWAY_API_KEYS with an admin key, or single sign-on, first.',
} as const;

export type ApiKeyErrorCode = keyof typeof apiKeyErrorMeanings;

export class ApiKeyError extends GatewayError {
  readonly kind: ErrorKind;
  constructor(
    readonly code: ApiKeyErrorCode,
    message: string = apiKeyErrorMeanings[code],
  ) {
    super(message);
    this.kind = code === 'API_KEY_NOT_FOUND' ? 'not-found' : code === 'API_KEY_NAME_TAKEN' ? 'conflict' : 'input';
    this.name = 'ApiKeyError';
  }
}

import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import * as oidc from 'openid-client';
import type { IdentitySettings } from '../../config/identity-env.ts';
import { GatewayError } from '../../lib/gateway-error.ts';
import { hasRolesClaim, identityFromClaims, type ClaimedIdentity } from './claims.ts';

/** What a sign-in or a refresh gives: who, and the provider's tokens kept for later. */
export interface SignedIn extends ClaimedIdentity {
  idToken: string | undefined;
  refreshToken: string | undefined;
}

/** What the sign-in redirect carries in the browser's cookie, to be checked at the callback. */
export interface SignInChecks {
  verifier: string;
  state: string;
  nonce: string;
}

/** Why a bearer token was refused, in words for its sender (never the token); it reaches them as a 401's message. */
export class TokenRefusal extends GatewayError {
  readonly code = 'token.refused';
  readonly kind = 'input';
  constructor(message: string) {
    super(message);
    this.name = 'TokenRefusal';
  }
}

const PROVIDER_TIMEOUT_S = 10;

/**
 * The company's OpenID Provider, through openid-client (the page's sign-in: code flow with PKCE,
 * refresh, sign-out) and jose (services' bearer tokens against the provider's JWKS). Discovery
 * runs on first use and again after a failure, so a gateway starts while its provider is down.
 */
export class IdentityProvider {
  private discovered: Promise<{ config: oidc.Configuration; jwks: ReturnType<typeof createRemoteJWKSet> }> | undefined;

  constructor(readonly settings: IdentitySettings) {}

  private discover() {
    this.discovered ??= (async () => {
      const issuer = new URL(this.settings.issuer);
      const auth = this.settings.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(this.settings.clientSecret);
      // Plain http only to this machine: a provider in development or a test, never across a network.
      const insecure = issuer.protocol === 'http:' && isLoopback(issuer.hostname);
      const config = await oidc.discovery(issuer, this.settings.clientId, undefined, auth, {
        timeout: PROVIDER_TIMEOUT_S,
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
      const jwksUri = config.serverMetadata().jwks_uri;
      if (jwksUri === undefined) throw new Error(`the provider at ${this.settings.issuer} publishes no jwks_uri`);
      return { config, jwks: createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: PROVIDER_TIMEOUT_S * 1000 }) };
    })();
    this.discovered.catch(() => (this.discovered = undefined));
    return this.discovered;
  }

  /** Where to send the browser, and what to check when it comes back. */
  async signInUrl(redirectUri: string): Promise<{ url: URL; checks: SignInChecks }> {
    const { config } = await this.discover();
    const checks = { verifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
    });
    return { url, checks };
  }

  /** The code exchanged at the callback URL: the ID token checked (signature, issuer, audience, nonce). */
  async completeSignIn(callbackUrl: URL, checks: SignInChecks): Promise<SignedIn> {
    const { config } = await this.discover();
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    return this.signedIn(config, tokens);
  }

  /** New tokens for a session; throws when the provider refuses (the person signed out there, or was removed). */
  async refresh(refreshToken: string): Promise<SignedIn> {
    const { config } = await this.discover();
    return this.signedIn(config, await oidc.refreshTokenGrant(config, refreshToken));
  }

  /** The provider's sign-out page for this session, or undefined when it has none. */
  async signOutUrl(idToken: string | undefined, returnTo: string): Promise<URL | undefined> {
    const { config } = await this.discover();
    if (config.serverMetadata().end_session_endpoint === undefined) return undefined;
    return oidc.buildEndSessionUrl(config, {
      post_logout_redirect_uri: returnTo,
      ...(idToken === undefined ? { client_id: this.settings.clientId } : { id_token_hint: idToken }),
    });
  }

  /**
   * A bearer token's claims: a JWT signed by a key of the provider's JWKS, for this audience,
   * from this issuer, within its times (with the configured skew). An ID token is refused, though
   * its audience is the client too: it says who signed in to the page, it grants nothing.
   */
  async verifyAccessToken(token: string): Promise<ClaimedIdentity> {
    const { jwks } = await this.discover();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        clockTolerance: this.settings.clockToleranceSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw new TokenRefusal(refusalWords(error));
    }
    if ('nonce' in payload || 'at_hash' in payload || payload.typ === 'ID') throw new TokenRefusal('an ID token is not an access token');
    const identity = identityFromClaims(payload, this.settings);
    if (identity === undefined) throw new TokenRefusal('the token names no subject or client');
    return identity;
  }

  private async signedIn(
    config: oidc.Configuration,
    tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
  ): Promise<SignedIn> {
    let claims: Record<string, unknown> = { ...tokens.claims() };
    // Many providers put groups in userinfo rather than the ID token (oidc-provider does, conforming).
    if (!hasRolesClaim(claims, this.settings.rolesClaim) && config.serverMetadata().userinfo_endpoint !== undefined) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
      claims = { ...info, ...claims };
    }
    const identity = identityFromClaims(claims, this.settings);
    if (identity === undefined) throw new Error('the ID token names no subject');
    return { ...identity, service: false, idToken: tokens.id_token, refreshToken: tokens.refresh_token };
  }
}

function refusalWords(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted here`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey)
    return "the token's signature is not the identity provider's";
  if (error instanceof joseErrors.JOSEError) return 'the token is not a valid JWT of the identity provider';
  return 'the identity provider could not be reached to check the token';
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

import * as oidc from 'openid-client';
import type { Logger } from '../../log/logger.ts';
import type { People } from '../people.ts';
import type { Sessions } from '../sessions.ts';
import type { Caller } from '../caller.ts';
import { IdentityProvider, TokenRefusal } from './identity-provider.ts';

/** A refusal of a token or session, in words for its sender. */
export interface Refused {
  refused: string;
}

/**
 * The company's identity on every request (issue 40): a service's bearer token verified against
 * the provider, or a page session, whose role is read again from the provider by a refresh every
 * few minutes. Both name the same `user:SUB`, so a person is one identity however they come.
 */
export class CompanyIdentity {
  constructor(
    readonly provider: IdentityProvider,
    readonly sessions: Sessions,
    readonly people: People,
    private readonly log: Logger,
  ) {}

  async callerOfToken(token: string): Promise<Caller | Refused> {
    try {
      const who = await this.provider.verifyAccessToken(token);
      if (who.role === undefined)
        return { refused: `${who.identity} has no role here: its ${this.provider.settings.rolesClaim} claim maps to none` };
      await this.people.note(who);
      return { role: who.role, caller: who.identity, via: 'token' };
    } catch (error) {
      if (error instanceof TokenRefusal) return { refused: error.message };
      this.log.warn({ err: error }, 'a bearer token could not be checked: the identity provider did not answer');
      return { refused: 'the identity provider could not be reached to check the token' };
    }
  }

  async callerOfSession(secret: string): Promise<Caller | undefined> {
    const session = await this.sessions.find(secret);
    if (session === undefined) return undefined;
    let role = session.role;
    if (session.refreshDue) {
      const refreshed = await this.refresh(session.id);
      if (refreshed === 'ended') return undefined;
      role = refreshed ?? role;
    }
    return { role, caller: session.identity, via: 'session' };
  }

  /**
   * Reads the session's role again from the provider. A refusal (signed out there, disabled, the
   * refresh token revoked) ends the session, as does a role taken away; a provider that does not
   * answer leaves it as it was, to be tried again in a minute.
   */
  private async refresh(id: string): Promise<Caller['role'] | 'ended' | undefined> {
    const tokens = await this.sessions.claimRefresh(id);
    // Another process is refreshing it, or the provider gave no refresh token at sign-in (then the role holds until the session ends).
    if (tokens?.refreshToken === undefined) return undefined;
    try {
      const now = await this.provider.refresh(tokens.refreshToken);
      if (now.role === undefined) {
        await this.sessions.end(id, 'no-role');
        return 'ended';
      }
      await this.sessions.refreshed(id, now.role, {
        refreshToken: now.refreshToken ?? tokens.refreshToken,
        idToken: now.idToken ?? tokens.idToken,
      });
      await this.people.note(now);
      return now.role;
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError) {
        this.log.info({ session: id, error: error.error }, 'the identity provider refused a session refresh: the session ends');
        await this.sessions.end(id, 'refresh-refused');
        return 'ended';
      }
      this.log.warn(
        { err: error, session: id },
        'a session could not be refreshed: the identity provider did not answer; trying again in a minute',
      );
      return undefined;
    }
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import * as oidc from 'openid-client';
import { isPreflighted } from '../auth/browser-guard.ts';
import { cookieValue, SESSION_COOKIE } from '../auth/credentials.ts';
import type { CompanyIdentity } from '../auth/oidc/company-identity.ts';
import type { SignInChecks } from '../auth/oidc/identity-provider.ts';
import type { Logger } from '../log/logger.ts';

/*
 * The page's single sign-on (issue 40): /auth/sign-in sends the browser to the company's
 * provider (code flow, PKCE S256, state and nonce), /auth/callback takes it back and starts a
 * session, /auth/sign-out ends it here and at the provider. docs/security.md says what each checks.
 */

export const SIGN_IN_PATHS = ['/auth/sign-in', '/auth/callback', '/auth/sign-out'] as const;

/** The sign-in's checks, in a cookie of their own for the provider's round trip only. */
const FLOW_COOKIE = 'payout-sign-in';
const FLOW_MAX_AGE_S = 600;

export interface SignInDeps {
  company: CompanyIdentity;
  /** GATEWAY_PUBLIC_URL: where the provider sends the browser back; unset, the Host the browser used. */
  publicUrl: string | undefined;
  logger: Logger;
}

export function isSignInPath(path: string): boolean {
  return (SIGN_IN_PATHS as readonly string[]).includes(path);
}

export async function handleSignIn(req: IncomingMessage, res: ServerResponse, path: string, deps: SignInDeps): Promise<void> {
  const base = deps.publicUrl ?? `http://${req.headers.host ?? 'localhost'}`;
  const secure = base.startsWith('https:');
  if (path === '/auth/sign-in') return start(req, res, base, secure, deps);
  if (path === '/auth/callback') return callback(req, res, base, secure, deps);
  return signOut(req, res, base, secure, deps);
}

async function start(req: IncomingMessage, res: ServerResponse, base: string, secure: boolean, deps: SignInDeps): Promise<void> {
  if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
  const back = returnPath(new URL(req.url ?? '/', base).searchParams.get('to'));
  let signIn: Awaited<ReturnType<CompanyIdentity['provider']['signInUrl']>>;
  try {
    signIn = await deps.company.provider.signInUrl(`${base}/auth/callback`);
  } catch (error) {
    deps.logger.warn({ err: error }, 'sign-in: the identity provider could not be reached');
    return page(res, 502, 'The identity provider did not answer', 'Try again in a moment; if it goes on, tell whoever runs the gateway.');
  }
  const flow = Buffer.from(JSON.stringify({ ...signIn.checks, back })).toString('base64url');
  res
    .writeHead(302, {
      location: signIn.url.href,
      // Lax, not Strict: the provider sends the browser back with a cross-site redirect.
      'set-cookie': cookie(FLOW_COOKIE, flow, { secure, sameSite: 'Lax', maxAge: FLOW_MAX_AGE_S, path: '/auth/callback' }),
      'cache-control': 'no-store',
    })
    .end();
}

async function callback(req: IncomingMessage, res: ServerResponse, base: string, secure: boolean, deps: SignInDeps): Promise<void> {
  if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
  const flow = flowOf(cookieValue(req.headers.cookie, FLOW_COOKIE));
  const clearFlow = cookie(FLOW_COOKIE, '', { secure, sameSite: 'Lax', maxAge: 0, path: '/auth/callback' });
  if (flow === undefined) {
    res.setHeader('set-cookie', clearFlow);
    return page(
      res,
      400,
      'This sign-in has expired',
      'It took longer than ten minutes, or began in another browser. <a href="/auth/sign-in">Sign in again</a>.',
    );
  }
  let who;
  try {
    who = await deps.company.provider.completeSignIn(new URL(req.url ?? '/', base), flow);
  } catch (error) {
    res.setHeader('set-cookie', clearFlow);
    if (error instanceof oidc.AuthorizationResponseError || error instanceof oidc.ResponseBodyError) {
      deps.logger.info({ error: error.error }, 'sign-in refused by the identity provider');
      return page(
        res,
        403,
        'The identity provider refused the sign-in',
        `It said: ${escape(error.error)}. <a href="/auth/sign-in">Try again</a>.`,
      );
    }
    deps.logger.warn({ err: error }, 'sign-in failed at the callback');
    return page(
      res,
      400,
      'The sign-in could not be completed',
      'The answer of the identity provider did not check out. <a href="/auth/sign-in">Sign in again</a>.',
    );
  }
  await deps.company.people.note(who);
  if (who.role === undefined) {
    deps.logger.info({ identity: who.identity }, 'sign-in refused: no role');
    res.setHeader('set-cookie', clearFlow);
    const out = await deps.company.provider.signOutUrl(who.idToken, `${base}/`).catch(() => undefined);
    return page(
      res,
      403,
      'You have no access to this gateway',
      `You signed in as ${escape(who.name)}, whose ${escape(deps.company.provider.settings.rolesClaim)} give no role here. Ask an admin to add you to a payroll group.${out === undefined ? '' : ` <a href="${escape(out.href)}">Sign out at the identity provider</a>.`}`,
    );
  }
  const session = await deps.company.sessions.start(
    { identity: who.identity, role: who.role },
    { refreshToken: who.refreshToken, idToken: who.idToken },
  );
  if (who.refreshToken === undefined)
    deps.logger.warn(
      'sign-in: the identity provider gave no refresh token, so a role taken away holds until the session ends; add offline_access to GATEWAY_OIDC_SCOPES',
    );
  const maxAge = Math.floor((session.expiresAt.getTime() - Date.now()) / 1000);
  res
    .writeHead(303, {
      location: flow.back,
      'set-cookie': [clearFlow, cookie(sessionCookieName(secure), session.secret, { secure, sameSite: 'Strict', maxAge, path: '/' })],
      'cache-control': 'no-store',
    })
    .end();
}

async function signOut(req: IncomingMessage, res: ServerResponse, base: string, secure: boolean, deps: SignInDeps): Promise<void> {
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
  // A form could post here from anywhere; the page sends a header a form cannot.
  if (!isPreflighted(req.headers, req.method)) {
    return json(res, 403, { error: 'Sign out from the page: this request needs the header x-graphql-yoga-csrf (CSRF prevention).' });
  }
  const secret = cookieValue(req.headers.cookie, sessionCookieName(secure));
  const tokens = secret === undefined ? undefined : await deps.company.sessions.endBySecret(secret);
  const out = await deps.company.provider.signOutUrl(tokens?.idToken, `${base}/`).catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'sign-out: the identity provider could not be reached; the session here has ended');
    return undefined;
  });
  res.setHeader('set-cookie', cookie(sessionCookieName(secure), '', { secure, sameSite: 'Strict', maxAge: 0, path: '/' }));
  // The page goes on to the provider, whose session ends too, and comes back to `/`.
  json(res, 200, { location: out?.href ?? '/' });
}

function sessionCookieName(secure: boolean): string {
  return secure ? SESSION_COOKIE.secure : SESSION_COOKIE.plain;
}

function cookie(name: string, value: string, o: { secure: boolean; sameSite: 'Strict' | 'Lax'; maxAge: number; path: string }): string {
  return `${name}=${value}; Path=${o.path}; Max-Age=${o.maxAge}; HttpOnly; SameSite=${o.sameSite}${o.secure ? '; Secure' : ''}`;
}

/** Back to a path of this page only: an address elsewhere would make the sign-in an open redirect. */
function returnPath(to: string | null): string {
  return to !== null && /^\/(?![/\\])/.test(to) ? to : '/';
}

function flowOf(raw: string | undefined): (SignInChecks & { back: string }) | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { verifier, state, nonce, back } = value;
    if ([verifier, state, nonce, back].every((v) => typeof v === 'string'))
      return { verifier, state, nonce, back: returnPath(back as string) } as SignInChecks & { back: string };
  } catch {
    // A cookie that does not parse is no sign-in of ours.
  }
  return undefined;
}

function page(res: ServerResponse, status: number, title: string, html: string): void {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1><p>${html}</p><p><a href="/">Back to the page</a></p></body></html>`;
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    })
    .end(body);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

import { request } from 'undici';

/**
 * The page's sign-in walked over HTTP as a browser would, without one: the gateway's
 * /auth/sign-in, the development provider's login form (any password), back to the gateway's
 * callback, each host's cookies kept apart. For server tests of sessions; the page's own
 * sign-in runs in Chromium (test/web/single-sign-on.test.ts).
 */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  take(url: string, setCookie: string | string[] | undefined): void {
    const jar = this.jarOf(url);
    for (const line of [setCookie ?? []].flat()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired) jar.delete(name);
      else jar.set(name, pair!.slice(at + 1).trim());
    }
  }

  header(url: string): string {
    return [...this.jarOf(url)].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  get(url: string, name: string): string | undefined {
    return this.jarOf(url).get(name);
  }

  private jarOf(url: string): Map<string, string> {
    const origin = new URL(url).origin;
    let jar = this.byOrigin.get(origin);
    if (jar === undefined) this.byOrigin.set(origin, (jar = new Map()));
    return jar;
  }
}

export interface Hop {
  url: string;
  status: number;
  /** The Set-Cookie lines as sent, attributes and all. */
  setCookie: string[];
  location: string | undefined;
  body: string;
}

/** One request with the jar's cookies; redirects are not followed (each hop is the caller's to see). */
export async function hop(
  jar: CookieJar,
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Hop> {
  const response = await request(url, {
    method: (init.method ?? 'GET') as 'GET',
    headers: { cookie: jar.header(url), ...init.headers },
    body: init.body,
  });
  jar.take(url, response.headers['set-cookie']);
  const location = response.headers.location as string | undefined;
  return {
    url,
    setCookie: [response.headers['set-cookie'] ?? []].flat(),
    status: response.statusCode,
    location: location === undefined ? undefined : new URL(location, url).href,
    body: await response.body.text(),
  };
}

/**
 * Signs `login` in at the gateway: returns the last hop (the callback's redirect to the page, or
 * a refusal page) with the jar holding the gateway's session cookie when it was given.
 */
export async function signIn(gatewayUrl: string, login: string, jar = new CookieJar(), to = '/'): Promise<{ jar: CookieJar; last: Hop }> {
  let current = await hop(jar, `${gatewayUrl}/auth/sign-in?to=${encodeURIComponent(to)}`);
  for (let hops = 0; hops < 12; hops++) {
    if (current.location !== undefined && current.status >= 300 && current.status < 400) {
      if (current.location.startsWith(`${gatewayUrl}/`) && !current.location.startsWith(`${gatewayUrl}/auth/`))
        return { jar, last: current };
      current = await hop(jar, current.location);
      continue;
    }
    const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(current.body);
    if (current.status === 200 && form !== null && current.body.includes('name="login"')) {
      const action = new URL(form[1]!.replace(/&amp;/g, '&'), current.url).href;
      current = await hop(jar, action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
      });
      continue;
    }
    return { jar, last: current };
  }
  throw new Error('sign-in: too many redirects');
}

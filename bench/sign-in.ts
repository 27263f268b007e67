import { request } from 'undici';

/**
 * A page session for a bench: the gateway's /auth/sign-in walked over HTTP to the development
 * identity provider's login form (any password) and back, each host's cookies kept apart. The
 * least of test/support/sign-in.ts (which the tests keep, with every hop for them to inspect):
 * benches import no test code.
 */
export async function signInCookie(gatewayUrl: string, login: string): Promise<string> {
  const jars = new Map<string, Map<string, string>>();
  const jarOf = (url: string) => {
    const origin = new URL(url).origin;
    if (!jars.has(origin)) jars.set(origin, new Map());
    return jars.get(origin)!;
  };
  const hop = async (url: string, init: { method?: 'GET' | 'POST'; body?: string; type?: string } = {}) => {
    const jar = jarOf(url);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await request(url, {
      method: init.method ?? 'GET',
      headers: { cookie, ...(init.type === undefined ? {} : { 'content-type': init.type }) },
      body: init.body,
    });
    for (const line of [response.headers['set-cookie'] ?? []].flat()) {
      const pair = line.split(';')[0]!;
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const location = response.headers.location as string | undefined;
    return { url, status: response.statusCode, location: location && new URL(location, url).href, body: await response.body.text() };
  };

  let current = await hop(`${gatewayUrl}/auth/sign-in?to=%2F`);
  for (let hops = 0; hops < 12; hops++) {
    if (current.location !== undefined && current.status >= 300 && current.status < 400) {
      // Back at the gateway's page: the session cookie is set.
      if (current.location.startsWith(`${gatewayUrl}/`) && !current.location.startsWith(`${gatewayUrl}/auth/`)) break;
      current = await hop(current.location);
      continue;
    }
    const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(current.body);
    if (current.status !== 200 || form === null) throw new Error(`sign-in stopped at ${current.url}: ${current.status}`);
    current = await hop(new URL(form[1]!.replace(/&amp;/g, '&'), current.url).href, {
      method: 'POST',
      type: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
    });
  }
  // `__Host-` only over https; a bench's gateway is plain http on this machine.
  const session = jarOf(gatewayUrl).get('payout-session');
  if (session === undefined) throw new Error(`sign-in of ${login} gave no session cookie`);
  return `payout-session=${session}`;
}

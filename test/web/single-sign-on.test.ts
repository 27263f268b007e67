import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  DEV_GATEWAY_SETTINGS,
  DEV_PEOPLE,
  startDevIdentityProvider,
  type DevIdentityProvider,
} from '../../scripts/identity-provider/dev-identity-provider.ts';
import { startGateway, type RunningGateway } from '../../src/app/start-gateway.ts';
import { SESSION_COOKIE } from '../../src/auth/credentials.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { createLogger } from '../../src/log/logger.ts';
import { policyFile } from '../support/approval-policy.ts';
import { textSource } from '../support/batch.ts';
import { buildWebPage, launch, openPage, repoRoot, step, suite, uploadAndOpen, type Rig } from '../support/browser.ts';
import { seedDataDir } from '../support/database-template.ts';
import { freePort } from '../support/gateway-process.ts';

/**
 * Issue 40 on the page, in Chromium against a real OpenID Provider (oidc-provider, the
 * development provider of scripts/identity-provider/) and a gateway on a real port: people
 * sign in with the company's account, each in a browser of their own, and the page names
 * them; under a two-approver policy an operator uploads and two approvers pay; someone in no
 * payroll group gets nothing (or read-only where the settings say); signing out ends the
 * session at both ends; an admin issues a key to a person on the Keys page, which acts as
 * that person, and revokes it.
 */

interface Gateway {
  gateway: RunningGateway;
  dataDir: string;
}

/** A gateway on `port` that takes the provider's sign-in, beside `env`. */
async function startSignOnGateway(port: number, issuer: string, env: Record<string, string>): Promise<Gateway> {
  const dataDir = await mkdtemp(join(tmpdir(), 'payout-web-sso-'));
  await seedDataDir(dataDir);
  const config = loadGatewayConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    GATEWAY_OIDC_ISSUER: issuer,
    ...DEV_GATEWAY_SETTINGS,
    ...env,
  });
  return { gateway: await startGateway(config, createLogger({ level: 'silent' })), dataDir };
}

const ME = '{ me { identity name role via } }';

/** GraphQL over HTTP as a program sends it: a bearer key, or the page's session cookie. */
async function graphql(url: string, query: string, auth: { key: string } | { cookie: string }) {
  const response = await request(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...('key' in auth ? { authorization: `Bearer ${auth.key}` } : { cookie: auth.cookie }),
    },
    body: JSON.stringify({ query }),
  });
  return { status: response.statusCode, body: (await response.body.json()) as { data?: Record<string, any>; errors?: unknown[] } };
}

suite('the web page: single sign-on with the company’s identity provider, in Chromium', () => {
  let idp: DevIdentityProvider;
  let main: Gateway;
  let browser: Browser;
  let base: string;
  let viewerPort: number;
  /** What went wrong in each browser, on the gateway's pages: the provider's pages are not ours to judge. */
  const problems = new Map<Rig, string[]>();

  beforeAll(async () => {
    buildWebPage();
    // The provider must know where each gateway is before it starts; the gateways need its issuer.
    const port = await freePort();
    viewerPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startDevIdentityProvider({ gatewayUrls: [base, `http://127.0.0.1:${viewerPort}`] });
    main = await startSignOnGateway(port, idp.issuer, {
      // Single sign-on alone: its people are distinct, so a policy of two people is taken without any key.
      APPROVAL_POLICY_FILE: policyFile('{ "batch": { "approvers": 2 } }'),
    });
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await main?.gateway.stop();
    await idp?.close();
    if (main !== undefined) await rm(main.dataDir, { recursive: true, force: true });
  });

  /** A browser of a person's own (its cookies and storage), on `url`. */
  async function browserOf(url = base): Promise<Rig> {
    const rig = await openPage(browser, url);
    // Nothing leaves the machine: the provider's development pages would fetch a web font.
    await rig.context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
    const seen: string[] = [];
    rig.page.on('console', (message) => {
      const at = message.location().url;
      if (message.type() === 'error' && at.startsWith(url)) seen.push(`${message.text()} (${at})`);
    });
    rig.page.on('pageerror', (error) => seen.push(error.message));
    problems.set(rig, seen);
    return rig;
  }

  /**
   * The gateway's page logged no error, but the one 401 a fresh browser's first look for a
   * session gets (Chromium logs every refused request); after a sign-out it does not ask again.
   */
  const clean = (rig: Rig, refused: 1 | 'more' = 1) => {
    const seen = problems.get(rig)!;
    expect(seen.filter((p) => !/status of 401/.test(p))).toEqual([]);
    const count = seen.filter((p) => /status of 401/.test(p)).length;
    if (refused === 1) expect(count).toBe(1);
    else expect(count).toBeGreaterThan(1);
  };

  /** From the page's gate through the provider's login form (any password), back on the page. */
  async function signIn(rig: Rig, login: string): Promise<void> {
    const { page } = rig;
    await page.goto('/');
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  }

  const header = (rig: Rig, name: string, role: string) =>
    rig.page
      .locator('.who-text')
      .filter({ hasText: `Signed in as ${name} ${role}` })
      .waitFor();
  const sessionCookie = async (rig: Rig) => (await rig.context.cookies(base)).find((c) => c.name === SESSION_COOKIE.plain)?.value;

  let olga: Rig;
  let anna: Rig;
  let batchId: string;

  it('signs an operator in with her company account: the header names her and her role, and she uploads', async () => {
    olga = await browserOf();
    const { page } = olga;
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Sign in with your company account' }).waitFor();
    // The key stays the other way in, folded away.
    expect(await page.getByLabel('API key').isVisible()).toBe(false);
    await step(olga, '40-sign-in-company');

    await signIn(olga, 'olga');
    await header(olga, DEV_PEOPLE.olga!.name, 'operator');
    await page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents()).toEqual([
      'Batches',
      'Upload a file',
      'Find a payment',
      'Reconciliation',
      'GraphiQL',
    ]);
    // The session cookie is the page's only credential: HttpOnly, so no script of the page reads it.
    const cookie = (await olga.context.cookies(base)).find((c) => c.name === SESSION_COOKIE.plain);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.evaluate(() => document.cookie)).not.toContain(SESSION_COOKIE.plain);

    batchId = await uploadAndOpen(olga, join(repoRoot, 'samples/payroll-valid.csv'));
    const uploadedBy = page.locator('.facts dt', { hasText: 'Uploaded by' }).locator('xpath=..').locator('dd');
    await uploadedBy.getByText('Olga Petrova (you)', { exact: true }).waitFor();
    await page.getByText('0 of 2 approvals; 2 needed').waitFor();
    await step(olga, '40-operator-uploaded');
    clean(olga);
  });

  it('has two approvers, each signed in, approve it: the page names them, never their identities', async () => {
    const ivan = await browserOf();
    await signIn(ivan, 'ivan');
    await header(ivan, DEV_PEOPLE.ivan!.name, 'approver');
    await ivan.page.goto(`/#/batches/${batchId}`);
    const facts = (rig: Rig, term: string) => rig.page.locator('.facts dt', { hasText: term }).locator('xpath=..').locator('dd');
    await facts(ivan, 'Uploaded by').getByText('Olga Petrova', { exact: true }).waitFor();
    await ivan.page.getByRole('button', { name: 'Add my approval' }).click();
    await ivan.page.getByRole('group').getByRole('button', { name: 'Add my approval' }).click();
    await ivan.page
      .getByTestId('approvals')
      .getByText(/^1 of 2 approvals: Ivan Sokolov at .+; one more needed$/)
      .waitFor();
    await step(ivan, '40-first-approver');

    anna = await browserOf();
    await signIn(anna, 'anna');
    await header(anna, DEV_PEOPLE.anna!.name, 'approver');
    await anna.page.goto(`/#/batches/${batchId}`);
    await anna.page
      .getByTestId('pending-approval')
      .getByText(/^Ivan Sokolov approved paying 10 rows, .+; your approval completes it$/)
      .waitFor();
    await anna.page.getByRole('button', { name: 'Approve this choice' }).click();
    await anna.page.getByRole('group').getByRole('button', { name: 'Approve this choice' }).click();
    await facts(anna, 'Approved by').getByText('Ivan Sokolov, Anna Volkova', { exact: true }).waitFor();
    await anna.page.getByText('10 of 10 rows finished').waitFor();
    expect(await anna.page.locator('main').innerText()).not.toMatch(/user:/);
    await step(anna, '40-paid-by-two-approvers');
    clean(ivan);
    clean(anna);
  });

  it('returns to the gate, saying so, when the session ends while the page is open', async () => {
    await header(anna, DEV_PEOPLE.anna!.name, 'approver');
    // As when the gateway ends it (idle, or the provider refused a refresh): its cookie is gone.
    await anna.context.clearCookies({ name: SESSION_COOKIE.plain });
    await anna.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Batches' }).click();
    await anna.page.getByRole('alert').getByText('Your session has ended. Sign in again to go on.').waitFor();
    await anna.page.getByRole('link', { name: 'Sign in with your company account' }).waitFor();
    expect(await anna.page.locator('.who').count()).toBe(0);
    await step(anna, '40-session-ended');
    // The page's requests in flight when the session ended were each refused: logged, and nothing else.
    clean(anna, 'more');
  });

  it('gives someone in no payroll group no access, or read-only where the settings say so', async () => {
    const vera = await browserOf();
    await signIn(vera, 'vera');
    await vera.page.getByRole('heading', { name: 'You have no access to this gateway' }).waitFor();
    await vera.page.getByText(/You signed in as Vera Lebedeva/).waitFor();
    await step(vera, '40-no-access');
    expect(await sessionCookie(vera)).toBeUndefined();

    // A second gateway whose settings give everyone the provider signs in a viewer's role.
    const viewer = await startSignOnGateway(viewerPort, idp.issuer, { GATEWAY_OIDC_DEFAULT_ROLE: 'viewer', WORKER_IN_PROCESS: 'false' });
    try {
      const reader = await browserOf(viewer.gateway.url.replace('localhost', '127.0.0.1'));
      await signIn(reader, 'vera');
      await header(reader, DEV_PEOPLE.vera!.name, 'viewer');
      await reader.page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();
      expect(await reader.page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents()).toEqual([
        'Batches',
        'Find a payment',
        'Reconciliation',
        'GraphiQL',
      ]);
      await step(reader, '40-read-only');
    } finally {
      await viewer.gateway.stop();
      await rm(viewer.dataDir, { recursive: true, force: true });
    }
  });

  it('signs out at both ends: the old cookie is refused, and signing in again asks for the login', async () => {
    const { page } = olga;
    await page.goto('/');
    await header(olga, DEV_PEOPLE.olga!.name, 'operator');
    const secret = await sessionCookie(olga);
    expect(secret).toBeDefined();
    const cookie = `${SESSION_COOKIE.plain}=${secret}`;
    expect((await graphql(base, ME, { cookie })).body.data?.me).toEqual({
      identity: 'user:olga',
      name: 'Olga Petrova',
      role: 'OPERATOR',
      via: 'session',
    });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.getByRole('link', { name: 'Sign in with your company account' }).waitFor();
    expect(new URL(page.url()).origin).toBe(base);
    expect((await graphql(base, ME, { cookie })).status).toBe(401);

    await page.goto('/auth/sign-in');
    await page.locator('input[name="login"]').waitFor();
    expect(new URL(page.url()).origin).toBe(idp.issuer);
    // Back on the page, signed out, it asked the gateway nothing it would refuse.
    clean(olga);
  });

  it('lets an admin issue a key to a person on the Keys page: it acts as her, and is refused once revoked', async () => {
    const alex = await browserOf();
    await alex.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await signIn(alex, 'alex');
    await header(alex, DEV_PEOPLE.alex!.name, 'admin');
    const { page } = alex;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByText('No keys yet.').waitFor();

    // A name no key may have is refused in words that name it.
    await page.getByLabel('Name').fill('9 lives');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('alert').getByText('This is not a name a key may have.').waitFor();
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Name').fill('olga-laptop');
    await page.getByLabel('Role').selectOption({ label: 'approver' });
    await page.getByLabel('Issued to').selectOption({ label: 'Olga Petrova <olga@example.com>' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('key-secret');
    await shown.getByText('Copy it now and hand it over safely: you will not see it again.', { exact: false }).waitFor();
    const secret = (await shown.locator('code').textContent())!;
    expect(secret).toMatch(/^pgk_/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const row = page.getByRole('row', { name: /olga-laptop/ });
    await row.getByRole('cell', { name: 'Olga Petrova' }).waitFor();
    await row.getByText(/by Alex Morozov$/).waitFor();
    await step(alex, '40-key-created');

    // The key is Olga: one identity with her sign-in, so maker-checker refuses it her own upload.
    const me = await graphql(base, ME, { key: secret });
    expect(me.body.data?.me).toEqual({ identity: 'user:olga', name: 'Olga Petrova', role: 'APPROVER', via: 'key:olga-laptop' });
    const text = 'provider,amount,account,reference\nbank-card-token,1000.00,token_success,sso-1\n';
    const hers = await main.gateway.services.importer.import({ source: textSource(text), uploadedBy: 'user:olga' });
    const approve = await graphql(base, `mutation { approveBatch(id: "${hers.id}") { __typename ... on Problem { code } } }`, {
      key: secret,
    });
    expect(approve.body.data?.approveBatch).toEqual({ __typename: 'BatchError', code: 'BATCH_SAME_PERSON' });

    // Once hidden, the secret is nowhere on the page.
    await shown.getByRole('button', { name: 'Done, hide it' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    await page.getByRole('button', { name: 'Русский' }).click();
    await page.getByRole('heading', { name: 'API-ключи', level: 1 }).waitFor();
    await step(alex, '40-keys-ru');
    await page.getByRole('button', { name: 'English' }).click();

    await row.getByRole('button', { name: 'Revoke olga-laptop' }).click();
    await row.getByRole('group').getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoked', { exact: true }).waitFor();
    await row
      .getByText(/ by Alex Morozov$/)
      .nth(1)
      .waitFor();
    await page.getByRole('status').getByText('olga-laptop is revoked.').waitFor();
    expect((await graphql(base, ME, { key: secret })).status).toBe(401);
    await step(alex, '40-key-revoked');
    clean(alex);
  });
});

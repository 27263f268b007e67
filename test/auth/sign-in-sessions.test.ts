import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { FormData, request } from 'undici';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DEV_GATEWAY_SETTINGS,
  DEV_PEOPLE,
  startDevIdentityProvider,
  type DevIdentityProvider,
} from '../../scripts/identity-provider/dev-identity-provider.ts';
import { postBatchUpload } from '../support/batch-graphql.ts';
import { tokenPayroll } from '../support/batch.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { freePort } from '../support/gateway-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';
import { hop, signIn, type CookieJar } from '../support/sign-in.ts';

/**
 * Issue 40: the page's single sign-on, over HTTP without a browser (the page itself is
 * test/web/single-sign-on.test.ts). A real OpenID Provider runs in the test: sessions are
 * started by the code flow, carried by an HttpOnly cookie that counts only where a foreign page
 * could not forge it, read again from the provider by refreshes, and ended at sign-out. A key
 * issued to a person acts as that person, so maker-checker sees one identity on both paths.
 */
const ADMIN = apiKey('ada');
const ME = '{ me { identity name role via } }';

describe.each(testDatabaseKinds())('page sessions of single sign-on, on $name', (database) => {
  let idp: DevIdentityProvider;
  let gw: TestGateway;
  let base: string;
  const olgaGroups = [...DEV_PEOPLE.olga!.groups];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startDevIdentityProvider({ gatewayUrls: [base] });
    gw = await startTestGateway({
      env: {
        PORT: String(port),
        GATEWAY_OIDC_ISSUER: idp.issuer,
        ...DEV_GATEWAY_SETTINGS,
        GATEWAY_API_KEYS: namedApiKeysEnv({ ada: 'admin' }),
      },
      database,
    });
  });
  afterAll(async () => {
    await gw?.close();
    await idp?.close();
  });
  afterEach(() => {
    DEV_PEOPLE.olga!.groups = [...olgaGroups];
  });

  /** GraphQL over the port with the jar's cookies, as the page sends it (JSON). */
  const gql = async (jar: CookieJar, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const response = await request(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: jar.header(base), ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.statusCode, body: (await response.body.json()) as { data?: any; errors?: Array<{ message: string }> } };
  };
  const sessionRow = async (identity: string) =>
    (
      await gw.db.query<{ role: string; endedWhy: string | null }>(
        `SELECT role, "endedWhy" FROM "Session" WHERE identity = $1 ORDER BY "createdAt" DESC LIMIT 1`,
        [identity],
      )
    )[0];

  it('signs a person in: an HttpOnly, SameSite=Strict cookie, the person named, with the role of their group', async () => {
    const { jar, last } = await signIn(base, 'olga');
    expect(last.status).toBe(303);
    expect(last.location).toBe(`${base}/`);
    expect(last.setCookie.find((c) => c.startsWith('payout-session='))).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await gql(jar, ME)).body.data.me).toEqual({ identity: 'user:olga', name: 'Olga Petrova', role: 'OPERATOR', via: 'session' });
    // The cookie holds a secret the table keeps only the hash of.
    const secret = jar.get(base, 'payout-session')!;
    const rows = await gw.db.query<{ row: string }>(`SELECT row_to_json(s)::text AS row FROM "Session" AS s`, []);
    expect(rows.some((r) => r.row.includes(secret))).toBe(false);
    expect(rows.some((r) => r.row.includes('user:olga'))).toBe(true);
  });

  it('takes the session on SSE and on a WebSocket from its own origin, and refuses a foreign origin', async () => {
    const { jar } = await signIn(base, 'olga');
    const sse = createSseClient({
      url: `${base}/graphql/stream`,
      headers: { cookie: jar.header(base), 'content-type': 'application/json' },
      retryAttempts: 0,
    });
    expect((await sse.iterate({ query: ME }).next()).value).toMatchObject({ data: { me: { identity: 'user:olga', via: 'session' } } });
    sse.dispose();
    const socket = (origin: string) =>
      createWsClient({
        url: `${base.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: class extends WebSocket {
          constructor(address: string, protocols: string[]) {
            super(address, protocols, { headers: { cookie: jar.header(base), origin } });
          }
        },
        retryAttempts: 0,
      });
    const own = socket(base);
    expect((await own.iterate({ query: ME }).next()).value).toMatchObject({ data: { me: { identity: 'user:olga' } } });
    await own.dispose();
    const foreign = socket('https://evil.example');
    await expect(foreign.iterate({ query: ME }).next()).rejects.toBeDefined();
    await foreign.dispose();
  });

  it('does not count the cookie on a request a foreign page could send (a form post): nothing is stored', async () => {
    const { jar } = await signIn(base, 'olga');
    const before = await gw.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Batch"`, []);
    // A form can post multipart with the cookie, but not a header of its own: the page's uploads send x-graphql-yoga-csrf.
    const body = new FormData();
    body.append(
      'operations',
      JSON.stringify({ query: 'mutation($file: File!) { importBatch(file: $file) { __typename } }', variables: { file: null } }),
    );
    body.append('map', JSON.stringify({ 0: ['variables.file'] }));
    body.append('0', new Blob([tokenPayroll(41, 2)]), 'payroll.csv');
    // Refused before the body is read, the connection may close under the sender (EPIPE): a refusal too.
    const forged = await request(`${base}/graphql`, { method: 'POST', headers: { cookie: jar.header(base) }, body }).then(
      async (response) => (await response.body.dump(), response.statusCode),
      () => 'closed before the file was read',
    );
    // Nor JSON sent as text/plain, which a form can.
    const form = await request(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie: jar.header(base) },
      body: JSON.stringify({ query: ME }),
    });
    expect(form.statusCode).not.toBe(200);
    await form.body.dump();
    expect([401, 403, 'closed before the file was read']).toContain(forged);
    expect(await gw.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Batch"`, [])).toEqual(before);
  });

  it('reads the role again at a refresh: a new group changes it, no payroll group ends the session', async () => {
    const { jar } = await signIn(base, 'olga');
    const due = () => gw.db.query(`UPDATE "Session" SET "refreshAt" = now() WHERE identity = 'user:olga' AND "endedAt" IS NULL`, []);
    DEV_PEOPLE.olga!.groups = ['payroll-approvers'];
    await due();
    expect((await gql(jar, ME)).body.data.me.role).toBe('APPROVER');
    DEV_PEOPLE.olga!.groups = ['staff'];
    await due();
    expect((await gql(jar, ME)).status).toBe(401);
    expect(await sessionRow('user:olga')).toMatchObject({ endedWhy: 'no-role' });
  });

  it('signs out only from the page (CSRF), ends the session here and sends the browser to the provider to end it there', async () => {
    const { jar } = await signIn(base, 'olga');
    const forged = await hop(jar, `${base}/auth/sign-out`, { method: 'POST' });
    expect(forged.status).toBe(403);
    expect((await gql(jar, ME)).status).toBe(200);
    const kept = jar.header(base);
    const out = await hop(jar, `${base}/auth/sign-out`, { method: 'POST', headers: { 'x-graphql-yoga-csrf': '1' } });
    expect(out.status).toBe(200);
    const location = new URL(JSON.parse(out.body).location);
    expect(location.href.startsWith(`${idp.issuer}/session/end`)).toBe(true);
    expect(location.searchParams.get('id_token_hint')).toMatch(/^ey/);
    expect(location.searchParams.get('post_logout_redirect_uri')).toBe(`${base}/`);
    // The cookie is cleared, and the old value no longer counts anywhere.
    expect(jar.get(base, 'payout-session')).toBeUndefined();
    const replay = await request(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: kept },
      body: JSON.stringify({ query: ME }),
    });
    expect(replay.statusCode).toBe(401);
    await replay.body.dump();
    expect(await sessionRow('user:olga')).toMatchObject({ endedWhy: 'signed-out' });
  });

  it('refuses a person whose groups map to no role: no session, a page that says why', async () => {
    const { jar, last } = await signIn(base, 'vera');
    expect(last.status).toBe(403);
    expect(last.body).toContain('You have no access to this gateway');
    expect(last.body).toContain('Vera Lebedeva');
    expect(jar.get(base, 'payout-session')).toBeUndefined();
    expect(await sessionRow('user:vera')).toBeUndefined();
  });

  it('returns only to a path of the page after sign-in (no open redirect)', async () => {
    expect((await signIn(base, 'olga', undefined, '/#/batches')).last.location).toBe(`${base}/#/batches`);
    expect((await signIn(base, 'olga', undefined, '//evil.example/x')).last.location).toBe(`${base}/`);
  });

  it('makes a key issued to a person act as them: one identity, so they cannot approve their own upload with it', async () => {
    const CREATE = `mutation($input: ApiKeyInput!) { createApiKey(input: $input) {
      __typename ... on CreateApiKeySuccess { created { secret apiKey { name owner { id name kind } } } } ... on Problem { code } } }`;
    const unknown = await gw.gql(CREATE, { input: { name: 'nobody-key', role: 'APPROVER', owner: 'user:nobody' } }, ADMIN);
    expect(unknown.body.data.createApiKey).toEqual({ __typename: 'ApiKeyError', code: 'API_KEY_OWNER_UNKNOWN' });

    const { jar } = await signIn(base, 'olga');
    const created = (await gw.gql(CREATE, { input: { name: 'olga-laptop', role: 'APPROVER', owner: 'user:olga' } }, ADMIN)).body.data
      .createApiKey;
    expect(created.created.apiKey.owner).toEqual({ id: 'user:olga', name: 'Olga Petrova', kind: 'PERSON' });
    const secret: string = created.created.secret;
    expect((await gw.gql(ME, {}, secret)).body.data.me).toEqual({
      identity: 'user:olga',
      name: 'Olga Petrova',
      role: 'APPROVER',
      via: 'key:olga-laptop',
    });

    const uploaded = await postBatchUpload(base, tokenPayroll(42, 2), { headers: { cookie: jar.header(base) }, fields: 'id uploadedBy' });
    const batch = uploaded.body.data.importBatch.batch;
    expect(batch.uploadedBy).toBe('user:olga');
    const approve = await gw.gql(
      `mutation($id: ID!) { approveBatch(id: $id) { __typename ... on BatchError { code } } }`,
      { id: batch.id },
      secret,
    );
    expect(approve.body.data.approveBatch).toEqual({ __typename: 'BatchError', code: 'BATCH_SAME_PERSON' });
    // Another's upload she may approve with it: the audit names her, and the key she came through.
    const other = (await postBatchUpload(base, tokenPayroll(43, 2), { key: ADMIN, fields: 'id' })).body.data.importBatch.batch;
    const approved = await gw.gql(`mutation($id: ID!) { approveBatch(id: $id) { __typename } }`, { id: other.id }, secret);
    expect(approved.body.data.approveBatch.__typename).not.toBe('BatchError');
    const audit = await gw.db.query<{ actor: string; detail: { through?: string } }>(
      `SELECT actor, detail FROM "AuditEvent" WHERE action = 'batch.approve' ORDER BY at DESC LIMIT 1`,
      [],
    );
    expect(audit[0]).toMatchObject({ actor: 'user:olga', detail: { through: 'key:olga-laptop' } });
  });
});

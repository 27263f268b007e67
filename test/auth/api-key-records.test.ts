import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createClient as createWsClient } from 'graphql-ws';
import { request } from 'undici';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDatabaseKinds } from '../support/database.ts';
import { GatewayProcess, killAllGateways } from '../support/gateway-process.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * Issue 40: API keys as records. An admin creates a key with a name, a role and an optional
 * expiry; its secret is shown once and stored only as a hash; a revoked or expired key is
 * refused on the next request; its use is recorded; the environment's keys still work and
 * keep their names.
 */
const ADMIN = apiKey('ada');
const OPERATOR = apiKey('olga');

const CREATE = `mutation($input: ApiKeyInput!) { createApiKey(input: $input) {
  __typename ... on CreateApiKeySuccess { created { secret apiKey { id name role hint createdBy expiresAt revokedAt lastUsedAt } } }
  ... on Problem { code message } } }`;
const REVOKE = `mutation($id: String!) { revokeApiKey(id: $id) {
  __typename ... on RevokeApiKeySuccess { apiKey { id revokedAt revokedBy } } ... on Problem { code message } } }`;
const ME = '{ me { identity role } }';

describe.each(testDatabaseKinds())('API keys admins create, on $name', (database) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: { GATEWAY_API_KEYS: namedApiKeysEnv({ ada: 'admin', olga: 'operator' }) }, database });
  });
  afterAll(() => gw?.close());

  const create = async (input: Record<string, unknown>, key = ADMIN) => (await gw.gql(CREATE, { input }, key)).body.data?.createApiKey;

  it('shows the secret once, keeps only its hash, and the key acts under its name and role', async () => {
    const created = await create({ name: 'payroll-app', role: 'OPERATOR' });
    expect(created.__typename).toBe('CreateApiKeySuccess');
    const { secret, apiKey: record } = created.created;
    expect(secret).toMatch(/^pgk_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ name: 'payroll-app', role: 'OPERATOR', hint: secret.slice(-4), createdBy: 'key:ada', revokedAt: null });

    // Stored: its SHA-256, never the secret, in the key's row or the audit trail.
    const rows = await gw.db.query<{ row: string }>(`SELECT row_to_json(k)::text AS row FROM "ApiKey" AS k`, []);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.row).toContain(createHash('sha256').update(secret).digest('hex'));
    expect(rows[0]!.row).not.toContain(secret.slice(4, -4));
    const audit = await gw.db.query<{ row: string }>(
      `SELECT row_to_json(a)::text AS row FROM "AuditEvent" AS a WHERE action LIKE 'api-key.%'`,
      [],
    );
    expect(audit.map((a) => JSON.parse(a.row).action)).toEqual(['api-key.create']);
    expect(audit[0]!.row).not.toContain(secret.slice(4, -4));

    expect((await gw.gql(ME, {}, secret)).body.data.me).toEqual({ identity: 'key:payroll-app', role: 'OPERATOR' });
    // Its use is noted (to the minute).
    const listed = await gw.gql('{ apiKeys { name lastUsedAt } }', {}, ADMIN);
    expect(listed.body.data.apiKeys).toEqual([{ name: 'payroll-app', lastUsedAt: expect.any(String) }]);
  });

  it('is refused from the request after its revocation, over HTTP, WebSocket and SSE, and its name is free again', async () => {
    const { secret, apiKey: record } = (await create({ name: 'short-lived', role: 'VIEWER' })).created;
    expect((await gw.gql(ME, {}, secret)).status).toBe(200);
    const before = createWsClient({
      url: `${gw.gateway.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${secret}` },
      retryAttempts: 0,
    });
    const answer = await before.iterate({ query: ME }).next();
    expect(answer.value).toEqual({ data: { me: { identity: 'key:short-lived', role: 'VIEWER' } } });
    await before.dispose();
    const revoked = (await gw.gql(REVOKE, { id: record.id }, ADMIN)).body.data.revokeApiKey;
    expect(revoked).toMatchObject({ __typename: 'RevokeApiKeySuccess', apiKey: { id: record.id, revokedBy: 'key:ada' } });
    const refused = await gw.gql(ME, {}, secret);
    expect(refused.status).toBe(401);
    // The same on the other transports: a WebSocket is closed 4403, an SSE stream answered 401.
    const closed = new Promise<number>((resolve) => {
      const client = createWsClient({
        url: `${gw.gateway.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${secret}` },
        retryAttempts: 0,
        lazy: true,
        on: { closed: (event) => resolve((event as { code: number }).code) },
      });
      client
        .iterate({ query: '{ __typename }' })
        .next()
        .catch(() => {});
    });
    expect(await closed).toBe(4403);
    const stream = await request(`${gw.gateway.url}/graphql/stream`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${secret}`, 'x-graphql-yoga-csrf': '1' },
    });
    expect(stream.statusCode).toBe(401);
    await stream.body.dump();
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    // Revoking again changes nothing; the name can be given to a new key.
    expect((await gw.gql(REVOKE, { id: record.id }, ADMIN)).body.data.revokeApiKey.apiKey.revokedAt).toBe(revoked.apiKey.revokedAt);
    expect((await create({ name: 'short-lived', role: 'VIEWER' })).__typename).toBe('CreateApiKeySuccess');
  });

  it('closes a WebSocket opened before the revocation at its next operation (4403)', async () => {
    const { secret, apiKey: record } = (await create({ name: 'open-socket', role: 'VIEWER' })).created;
    let closedWith: number | undefined;
    const client = createWsClient({
      url: `${gw.gateway.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${secret}` },
      retryAttempts: 0,
      // Not lazy: the socket stays open between operations instead of reconnecting (which a revoked key could not).
      lazy: false,
      on: { closed: (event) => (closedWith = (event as { code: number }).code) },
    });
    expect((await client.iterate({ query: ME }).next()).value).toEqual({ data: { me: { identity: 'key:open-socket', role: 'VIEWER' } } });
    await gw.gql(REVOKE, { id: record.id }, ADMIN);
    // The same socket, still open: its next operation is refused and the socket closed.
    const next = await client
      .iterate({ query: ME })
      .next()
      .then(
        (answer) => answer.value,
        (error: unknown) => error,
      );
    expect(next).not.toEqual({ data: { me: { identity: 'key:open-socket', role: 'VIEWER' } } });
    await vi.waitFor(() => expect(closedWith).toBe(4403));
    await client.dispose();
  });

  it('is refused once expired', async () => {
    const { secret, apiKey: record } = (await create({ name: 'expiring', role: 'VIEWER', expiresAt: '2099-01-01T00:00:00Z' })).created;
    expect(record.expiresAt).toBe('2099-01-01T00:00:00.000Z');
    expect((await gw.gql(ME, {}, secret)).status).toBe(200);
    // Its time comes (set in the past here rather than waited for).
    await gw.db.prisma.apiKey.update({ where: { id: record.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    expect((await gw.gql(ME, {}, secret)).status).toBe(401);
  });

  it('refuses a taken or malformed name, a past expiry, an unknown id, and anyone but an admin', async () => {
    expect(await create({ name: 'payroll-app', role: 'ADMIN' })).toMatchObject({ code: 'API_KEY_NAME_TAKEN' });
    // The environment's keys are identities too: a created key may not act as one of them.
    expect(await create({ name: 'olga', role: 'ADMIN' })).toMatchObject({ code: 'API_KEY_NAME_TAKEN' });
    // Without case, as the environment's names: Olga and olga would be one person to a reader.
    expect(await create({ name: 'OLGA', role: 'ADMIN' })).toMatchObject({ code: 'API_KEY_NAME_TAKEN' });
    expect(await create({ name: 'Payroll-App', role: 'ADMIN' })).toMatchObject({ code: 'API_KEY_NAME_TAKEN' });
    expect(await create({ name: 'two words', role: 'VIEWER' })).toMatchObject({ code: 'API_KEY_NAME_INVALID' });
    expect(await create({ name: 'late', role: 'VIEWER', expiresAt: '2001-01-01T00:00:00Z' })).toMatchObject({
      code: 'API_KEY_EXPIRY_INVALID',
    });
    const unknown = (await gw.gql(REVOKE, { id: '00000000-0000-0000-0000-000000000000' }, ADMIN)).body.data.revokeApiKey;
    expect(unknown).toMatchObject({ code: 'API_KEY_NOT_FOUND' });
    const byOperator = await gw.gql(CREATE, { input: { name: 'sneaky', role: 'ADMIN' } }, OPERATOR);
    expect(byOperator.body.data?.createApiKey ?? null).toBeNull();
    expect(byOperator.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gw.gql('{ apiKeys { name } }', {}, OPERATOR)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('API keys on a gateway without GATEWAY_API_KEYS (anonymous local use)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ env: {} });
  });
  afterAll(() => gw?.close());

  it('are refused: it takes no keys, so an admin key of the environment comes first', async () => {
    const reply = await gw.gql(CREATE, { input: { name: 'app', role: 'VIEWER' } });
    expect(reply.body.data.createApiKey).toMatchObject({ code: 'API_KEYS_NEED_AN_ADMIN_KEY' });
    expect((await gw.gql('{ apiKeys { name } }')).body.data.apiKeys).toEqual([]);
  });
});

/**
 * A revocation binds every process at once: two gateway processes on one PostgreSQL database,
 * the key created and revoked through one, refused by the other on its next request with no
 * restart and nothing to wait for.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('a key revoked on one gateway process, on PostgreSQL', () => {
  // A skipped describe's body still runs at collection: nothing here reads TEST_DATABASE_URL until a hook does.
  const name = `payout_api_keys_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  const dirs: string[] = [];
  let urls: string[] = [];
  beforeAll(async () => {
    await admin(`CREATE DATABASE "${name}"`);
    const databaseUrl = Object.assign(new URL(process.env.TEST_DATABASE_URL!), { pathname: `/${name}` }).toString();
    const env = (dir: string) => ({
      DATA_DIR: dir,
      PORT: '0',
      DATABASE_URL: databaseUrl,
      GATEWAY_API_KEYS: namedApiKeysEnv({ ada: 'admin' }),
      WORKER_IN_PROCESS: 'false',
    });
    for (let i = 0; i < 2; i++) dirs.push(mkdtempSync(join(tmpdir(), 'api-keys-')));
    // One after the other: the first migrates the database.
    const first = GatewayProcess.spawn('gateway', env(dirs[0]!));
    urls = [await first.ready];
    urls.push(await GatewayProcess.spawn('gateway', env(dirs[1]!)).ready);
  }, 180_000);
  afterAll(async () => {
    await killAllGateways();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  const gqlAt = async (url: string, query: string, variables: Record<string, unknown>, key: string) => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('is refused by the other process on its next request', async () => {
    const [one, other] = urls as [string, string];
    const created = (await gqlAt(one, CREATE, { input: { name: 'service', role: 'OPERATOR' } }, ADMIN)).body.data.createApiKey.created;
    expect((await gqlAt(other, ME, {}, created.secret)).body.data.me).toEqual({ identity: 'key:service', role: 'OPERATOR' });
    expect((await gqlAt(one, REVOKE, { id: created.apiKey.id }, ADMIN)).body.data.revokeApiKey.__typename).toBe('RevokeApiKeySuccess');
    expect((await gqlAt(other, ME, {}, created.secret)).status).toBe(401);
  });
});

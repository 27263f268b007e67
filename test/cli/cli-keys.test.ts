import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEV_GATEWAY_SETTINGS,
  startDevIdentityProvider,
  type DevIdentityProvider,
} from '../../scripts/identity-provider/dev-identity-provider.ts';
import { budget, cliInFreshDataDir, startPayout, type PayoutResult } from '../support/cli-process.ts';
import { freePort, GatewayProcess, killAllGateways } from '../support/gateway-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';
import { signIn } from '../support/sign-in.ts';

/**
 * `payout keys …` (issue 40) as an admin runs it against a running gateway whose log is kept
 * at debug: a key is created, its secret works on GraphQL at once, it is listed by its hint,
 * revoked, and refused on the very next request. A person signs in through a real provider in
 * this process so that a key can be issued to them. The secret is looked for wherever it must
 * not be: the CLI's stderr, the gateway's log lines.
 */
const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'payout-cli-keys-'));
  dirs.push(dir);
  return dir;
};
const keyFile = async (dir: string, name: string, key: string) => {
  const file = join(dir, `${name}.key`);
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return file;
};
const json = (result: PayoutResult) => JSON.parse(result.stdout) as Record<string, any>;
const jsonError = (result: PayoutResult) => JSON.parse(result.stderr.trim().split('\n').at(-1)!).error as Record<string, unknown>;

describe('payout keys against a running gateway', () => {
  let idp: DevIdentityProvider;
  let gateway: GatewayProcess;
  let url: string;
  let admin: Record<string, string>;
  let operator: Record<string, string>;
  let dir: string;
  const ran: PayoutResult[] = [];
  const payout = async (args: string[], env: Record<string, string>) => {
    const result = await startPayout(args, { ...env, LANG: 'en_US.UTF-8', TZ: 'UTC' }).done;
    ran.push(result);
    return result;
  };
  /** GraphQL `me` as a client holding the secret would ask it. */
  const me = async (secret: string) => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ query: '{ me { identity role via } }' }),
    });
    return { status: response.status, body: (await response.json()) as { data?: { me: Record<string, unknown> } } };
  };

  beforeAll(async () => {
    dir = await tempDir();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    idp = await startDevIdentityProvider({ gatewayUrls: [url] });
    gateway = GatewayProcess.spawn('gateway', {
      DATA_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      GATEWAY_API_KEYS: namedApiKeysEnv({ ada: 'admin', otto: 'operator' }),
      GATEWAY_OIDC_ISSUER: idp.issuer,
      ...DEV_GATEWAY_SETTINGS,
    });
    await gateway.ready;
    admin = { PAYOUT_GATEWAY_URL: url, DATA_DIR: await tempDir(), PAYOUT_CLI_KEY_FILE: await keyFile(dir, 'ada', apiKey('ada')) };
    operator = { ...admin, PAYOUT_CLI_KEY_FILE: await keyFile(dir, 'otto', apiKey('otto')) };
  });
  afterAll(async () => {
    await killAllGateways();
    await idp?.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it(
    'creates a key whose secret works at once, lists it by its hint, revokes it, and the next request is refused; the secret is shown once only',
    { timeout: budget(14) },
    async () => {
      // A person the provider names, once signed in, is whom a key may be issued to.
      expect((await signIn(url, 'anna')).last.status).toBe(303);
      const [peopleText, peopleJson] = await Promise.all([payout(['keys', 'people'], admin), payout(['keys', 'people', '--json'], admin)]);
      expect(peopleText.code, peopleText.stderr).toBe(0);
      expect(peopleText.stdout).toMatch(/user:anna\s+Anna Volkova\s+anna@example\.com\s+person/);
      expect(json(peopleJson)).toEqual({ people: [{ id: 'user:anna', name: 'Anna Volkova', email: 'anna@example.com', kind: 'PERSON' }] });

      const [created, issued] = await Promise.all([
        payout(['keys', 'create', '--name', 'payroll-app', '--role', 'operator', '--expires-in', '90d'], admin),
        payout(
          [
            'keys',
            'create',
            '--name',
            'anna-laptop',
            '--role',
            'approver',
            '--owner',
            'user:anna',
            '--expires',
            '2099-01-31T00:00:00Z',
            '--json',
          ],
          admin,
        ),
      ]);
      // Text: the secret alone on stdout (a key file when redirected), the words about it on stderr.
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/^pgk_[A-Za-z0-9_-]{43}\n$/);
      const secret = created.stdout.trim();
      expect(created.stderr).toContain('Created API key payroll-app');
      expect(created.stderr).toContain('will not be shown again');
      expect(created.stderr).toContain('"Authorization: Bearer <secret>"');
      expect(issued.code, issued.stderr).toBe(0);
      const { secret: annaSecret, apiKey: annaKey } = json(issued);
      expect(Object.keys(json(issued)).sort()).toEqual(['apiKey', 'secret']);
      expect(annaKey).toEqual({
        id: expect.any(String),
        name: 'anna-laptop',
        role: 'approver',
        hint: annaSecret.slice(-4),
        owner: { id: 'user:anna', name: 'Anna Volkova', email: 'anna@example.com', kind: 'PERSON' },
        createdAt: expect.any(String),
        createdBy: 'key:ada',
        expiresAt: '2099-01-31T00:00:00.000Z',
        revokedAt: null,
        revokedBy: null,
        lastUsedAt: null,
      });
      // With --json, stderr carries JSON lines only: the notice, without the secret.
      expect(
        issued.stderr
          .trim()
          .split('\n')
          .map((line) => Object.keys(JSON.parse(line))),
      ).toEqual([['notice']]);

      expect(await me(secret)).toEqual({
        status: 200,
        body: { data: { me: { identity: 'key:payroll-app', role: 'OPERATOR', via: null } } },
      });
      expect((await me(annaSecret)).body.data?.me).toEqual({ identity: 'user:anna', role: 'APPROVER', via: 'key:anna-laptop' });

      const [list, listJson] = await Promise.all([payout(['keys', 'list'], admin), payout(['keys', 'list', '--json'], admin)]);
      expect(list.code, list.stderr).toBe(0);
      const row = (name: string) => list.stdout.split('\n').find((line) => line.includes(` ${name} `)) ?? '';
      expect(row('payroll-app')).toMatch(new RegExp(`payroll-app\\s+operator\\s+…${secret.slice(-4)}\\s+\\w{3} \\d+, \\d{4}.*key:ada`));
      expect(row('anna-laptop')).toMatch(new RegExp(`anna-laptop\\s+approver\\s+Anna Volkova\\s+…${annaSecret.slice(-4)}\\s`));
      expect(row('anna-laptop')).toContain('2099');
      const keys = json(listJson).apiKeys as Array<Record<string, any>>;
      // Newest first, but the two were created at once (the same millisecond can happen): compared as a set.
      expect(keys.map((k) => k.name).sort()).toEqual(['anna-laptop', 'payroll-app']);
      const app = keys.find((k) => k.name === 'payroll-app')!;
      expect(app).toMatchObject({ role: 'operator', hint: secret.slice(-4), owner: null, revokedAt: null, createdBy: 'key:ada' });
      // Used by `me` above: noted on that request.
      expect(app.lastUsedAt).toEqual(expect.any(String));
      expect(Date.parse(app.expiresAt) - Date.parse(app.createdAt)).toBeGreaterThan(89 * 86_400_000);

      const revoked = await payout(['keys', 'revoke', app.id], admin);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toBe(
        `Revoked API key payroll-app (operator, …${secret.slice(-4)}, id ${app.id}): every gateway on the database refuses it from its next request.\n`,
      );
      // At once: the first request after the command, no waiting.
      const refused = await me(secret);
      expect(refused.status).toBe(401);

      const [again, withRevoked] = await Promise.all([
        payout(['keys', 'revoke', app.id, '--json'], admin),
        payout(['batch', 'list'], { ...admin, PAYOUT_CLI_KEY_FILE: await keyFile(dir, 'payroll-app', secret) }),
      ]);
      expect(again.code, again.stderr).toBe(0);
      expect(json(again)).toMatchObject({
        alreadyRevoked: true,
        apiKey: { id: app.id, revokedBy: 'key:ada', revokedAt: expect.any(String) },
      });
      expect(withRevoked.code).toBe(2);
      expect(withRevoked.stderr).toContain('nor a live key of payout keys create (revoked and expired keys are refused)');

      // Nothing else printed the secrets, and the gateway logged neither (its log is at debug).
      for (const result of ran.filter((r) => r !== created && r !== issued)) {
        expect(result.stdout + result.stderr).not.toContain(secret);
        expect(result.stdout + result.stderr).not.toContain(annaSecret);
      }
      expect(created.stderr + issued.stderr).not.toContain(secret);
      expect(created.stderr + issued.stderr).not.toContain(annaSecret);
      const log = gateway.logTail(2_000);
      expect(log).toContain('CliCreateApiKey');
      expect(log).not.toContain(secret.slice(4));
      expect(log).not.toContain(annaSecret.slice(4));
    },
  );

  it(
    'refuses, naming the bad input: a taken or invalid name, a past expiry, an unknown owner or id, a key that is not an admin',
    { timeout: budget(6) },
    async () => {
      const create = (args: string[], env = admin) => payout(['keys', 'create', '--role', 'viewer', ...args], env);
      const [taken, invalid, past, nobody, notAdmin, unknownId] = await Promise.all([
        create(['--name', 'ada', '--json']),
        create(['--name', '9 lives']),
        create(['--name', 'late', '--expires', '2020-01-01T00:00:00Z']),
        create(['--name', 'ghost', '--owner', 'user:nobody']),
        create(['--name', 'mine'], operator),
        payout(['keys', 'revoke', 'no-such-key', '--json'], admin),
      ]);
      expect(taken.code).toBe(2);
      expect(jsonError(taken)).toEqual({
        code: 'API_KEY_NAME_TAKEN',
        message: 'payout keys create: key:ada is a key of GATEWAY_API_KEYS: choose another name',
        exitCode: 2,
      });
      expect(taken.stdout).toBe('');
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toBe(
        'payout keys create: "9 lives" is not a key name: a letter, then up to 39 letters, digits, dots, dashes or underscores\n',
      );
      expect(past.code).toBe(2);
      expect(past.stderr).toContain('the expiry 2020-01-01T00:00:00.000Z is not in the future');
      expect(nobody.code).toBe(2);
      expect(nobody.stderr).toContain('user:nobody has never signed in here');
      expect(nobody.stderr).toContain('payout keys people lists whom a key may be issued to');
      expect(notAdmin.code).toBe(2);
      expect(notAdmin.stderr).toBe('payout keys create: key:otto has the operator role; this needs admin\n');
      expect(unknownId.code).toBe(2);
      expect(jsonError(unknownId)).toMatchObject({ code: 'API_KEY_NOT_FOUND', message: expect.stringContaining('no-such-key') });
      // Each refusal made nothing: the list holds only what the first test created.
      const names = (json(await payout(['keys', 'list', '--json'], admin)).apiKeys as Array<{ name: string }>).map((k) => k.name);
      expect(names.filter((name) => ['ada', 'late', 'ghost', 'mine'].includes(name))).toEqual([]);
    },
  );
});

describe('payout keys with no gateway running', () => {
  // The command serves the API itself over the embedded database (decision 20): keys go through it too.
  const { payout, dataDir } = cliInFreshDataDir('payout-cli-keys-local-', {
    defaults: { GATEWAY_API_KEYS: namedApiKeysEnv({ ada: 'admin' }), LANG: 'en_US.UTF-8', TZ: 'UTC' },
  });

  it('creates a key that a later command acts as, and revokes it', { timeout: budget(3) }, async () => {
    const admin = { PAYOUT_CLI_KEY_FILE: await keyFile(dataDir(), 'ada', apiKey('ada')) };
    const created = await payout(['keys', 'create', '--name', 'deputy', '--role', 'admin', '--json'], admin);
    expect(created.code, created.stderr).toBe(0);
    const { secret, apiKey: record } = json(created);
    expect(created.stderr).toContain('this command opens the embedded database');
    expect(created.stderr).not.toContain(secret);
    // The new key acts in a later process (its record looked up there), here revoking itself.
    const asDeputy = { PAYOUT_CLI_KEY_FILE: await keyFile(dataDir(), 'deputy', secret) };
    const revoked = await payout(['keys', 'revoke', record.id, '--json'], asDeputy);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(json(revoked)).toMatchObject({ alreadyRevoked: false, apiKey: { name: 'deputy', revokedBy: 'key:deputy' } });
    const refused = await payout(['batch', 'list'], asDeputy);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not one of GATEWAY_API_KEYS');
    expect(refused.stderr).toContain('nor a live key of payout keys create');
  });

  it('refuses in anonymous local use, which takes no keys', { timeout: budget(1) }, async () => {
    const result = await payout(['keys', 'list', '--json'], { GATEWAY_API_KEYS: '' });
    expect(result.code).toBe(2);
    expect(jsonError(result)).toMatchObject({ code: 'API_KEYS_NEED_AN_ADMIN_KEY', message: expect.stringContaining('takes no API keys') });
  });
});

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUpstream, type Upstream } from '../../src/app/upstream.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createSandbox } from '../../src/sandbox/server.ts';
import { cliInFreshDataDir } from '../support/cli-process.ts';
import { namedApiKeysEnv, testPrivateKeyFile, testPublicKey } from '../support/keys.ts';
import { cliEnvFor, startSandbox, type TestSandbox } from '../support/sandbox.ts';

/** For a hung run only: each CLI start loads the built app, seconds on a loaded machine. */
const BUDGET_MS = 300_000;

/** The CLI as a user runs it, in its own process (test/support/cli-process.ts). */
const { payout, dataDir } = cliInFreshDataDir('payout-cli-payday-', { defaults: { LOG_LEVEL: 'warn' } });

/** `payout sandbox …` against a standalone sandbox at PAYOUT_API_URL (its /_sandbox/ routes). */
describe('payout sandbox outage | balance | calls, on a sandbox at PAYOUT_API_URL', () => {
  let sb: TestSandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    sb = await startSandbox({ balance: '5000.00' });
    env = cliEnvFor(sb);
  });
  afterAll(() => sb.close());

  it(
    'sets a 503 outage with Retry-After for a time, shows it, and clears it',
    async () => {
      const set = await payout(['sandbox', 'outage', '--status', '503', '--retry-after', '5', '--for', '2m'], env);
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
      expect(set.stdout).toMatch(
        /answering 503 with Retry-After: 5 to create, execute, read, balance and list calls until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/,
      );
      expect(sb.sandbox.outage.current()).toMatchObject({ mode: 'status', status: 503, retryAfterSeconds: 5 });
      expect((await sb.get('/balance')).status).toBe(503);

      const shown = await payout(['sandbox', 'outage'], env);
      expect(shown.stdout).toMatch(/answering 503/);
      const cleared = await payout(['sandbox', 'outage', '--clear'], env);
      expect(cleared.code).toBe(0);
      expect(cleared.stdout).toMatch(/Ended the outage/);
      expect(sb.sandbox.outage.current()).toBeUndefined();
      expect((await payout(['sandbox', 'outage'], env)).stdout).toMatch(/No outage/);
    },
    BUDGET_MS,
  );

  it(
    'sets a hang scoped to kinds, a 429, and a refusal that says its test routes are unreachable until it ends',
    async () => {
      expect((await payout(['sandbox', 'outage', '--hang', '3m', '--only', 'create,execute'], env)).code).toBe(0);
      expect(sb.sandbox.outage.current()).toMatchObject({ mode: 'hang', kinds: ['create', 'execute'], then: 'answer' });
      expect((await payout(['sandbox', 'outage', '--status', '429', '--for', '90s'], env)).code).toBe(0);
      expect(sb.sandbox.outage.current()).toMatchObject({ mode: 'status', status: 429 });

      const refused = await payout(['sandbox', 'outage', '--refuse', '120s'], env);
      expect(refused.code).toBe(0);
      expect(refused.stdout).toMatch(/refusing connections until .* UTC/);
      expect(refused.stdout).toMatch(/ends by itself/);
      expect(sb.sandbox.outage.current()).toMatchObject({ mode: 'refuse' });
      const unreachable = await payout(['sandbox', 'outage', '--clear'], env);
      expect(unreachable.code).toBe(2);
      expect(unreachable.stderr).toMatch(/refuses connections/);
      await sb.sandbox.outage.clear();
    },
    BUDGET_MS,
  );

  it(
    'refuses bad durations and statuses, naming the option and the value',
    async () => {
      const duration = await payout(['sandbox', 'outage', '--refuse', '2 minutes'], env);
      expect(duration.code).toBe(2);
      expect(duration.stderr).toMatch(/--refuse "2 minutes" is not a duration/);
      const status = await payout(['sandbox', 'outage', '--status', '500', '--for', '1m'], env);
      expect(status.code).toBe(2);
      expect(status.stderr).toMatch(/--status/);
      const noFor = await payout(['sandbox', 'outage', '--status', '503'], env);
      expect(noFor.code).toBe(2);
      expect(noFor.stderr).toMatch(/--for/);
      const two = await payout(['sandbox', 'outage', '--hang', '1m', '--refuse', '1m'], env);
      expect(two.code).toBe(2);
      expect(sb.sandbox.outage.current()).toBeUndefined();
    },
    BUDGET_MS,
  );

  it(
    'sets and adds to the balance, refusing an amount that is not one',
    async () => {
      const set = await payout(['sandbox', 'balance', '--set', '1000.00'], env);
      expect(set.code).toBe(0);
      expect(set.stdout).toMatch(/balance\s+1000\.00/);
      const added = await payout(['sandbox', 'balance', '--add', '500.00'], env);
      expect(added.stdout).toMatch(/balance\s+1500\.00/);
      expect((await sb.get('/balance')).body.balance.value).toBe('1500.00');
      expect((await payout(['sandbox', 'balance'], env)).stdout).toMatch(/available\s+1500\.00/);
      const bad = await payout(['sandbox', 'balance', '--set', '10.5'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--set "10\.5" is not an amount/);
      const both = await payout(['sandbox', 'balance', '--set', '1.00', '--add', '1.00'], env);
      expect(both.code).toBe(2);
      expect((await sb.get('/balance')).body.balance.value).toBe('1500.00');
    },
    BUDGET_MS,
  );

  it(
    'shows the call counts per kind and resets them',
    async () => {
      sb.sandbox.testFeatures.resetCalls();
      await sb.get('/balance');
      await sb.get('/payments/nope');
      const shown = await payout(['sandbox', 'calls'], env);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/^balance\s+1\s+0$/m);
      expect(shown.stdout).toMatch(/^read\s+1\s+0$/m);
      expect(shown.stdout).toMatch(/^total\s+2\s+0$/m);
      const reset = await payout(['sandbox', 'calls', '--reset'], env);
      expect(reset.stdout).toMatch(/^total\s+2\s+0$/m);
      expect(reset.stdout).toMatch(/reset/i);
      expect(sb.sandbox.testFeatures.calls().total).toBe(0);
    },
    BUDGET_MS,
  );
});

/** The embedded sandbox: in the running gateway's process, or its state in DATA_DIR when none runs. */
describe('payout sandbox on the embedded sandbox', () => {
  it(
    'reaches the embedded sandbox of a running gateway through its control file',
    async () => {
      const logger = createLogger({ level: 'silent', name: 'test' });
      const upstream: Upstream = await connectUpstream(loadGatewayConfig({ DATA_DIR: dataDir() }), logger);
      try {
        // It holds the token of the test routes: its owner's only.
        expect(statSync(join(dataDir(), 'sandbox', 'control.json')).mode & 0o077).toBe(0);
        const set = await payout(['sandbox', 'outage', '--status', '503', '--for', '1m']);
        expect(set.stderr).toBe('');
        expect(set.code).toBe(0);
        const error = await upstream.client.getBalance().catch((e: unknown) => e);
        expect(error).toMatchObject({ httpStatus: 503 });
        expect((await payout(['sandbox', 'calls'])).stdout).toMatch(/^balance\s+\d+\s+[1-9]\d*$/m);
        expect((await payout(['sandbox', 'outage', '--clear'])).code).toBe(0);
        expect((await payout(['sandbox', 'balance', '--set', '750.00'])).code).toBe(0);
        expect((await upstream.client.getBalance()).balance?.value).toBe('750.00');
      } finally {
        await upstream.close();
      }
      // Stopped: no control file points at a sandbox that is gone.
      expect(existsSync(join(dataDir(), 'sandbox', 'control.json'))).toBe(false);
    },
    BUDGET_MS,
  );

  it(
    "sets the balance in the stopped embedded sandbox's state, and says an outage needs a running one",
    async () => {
      expect((await payout(['sandbox', 'balance', '--set', '1234.00'])).code).toBe(0);
      const sandbox = createSandbox({
        agentId: 'sandbox-agent',
        apiToken: 't',
        publicKeyPem: testPublicKey,
        webhookSecret: 's',
        stateDir: join(dataDir(), 'sandbox'),
      });
      try {
        expect(sandbox.ledger.balance().balance?.value).toBe('1234.00');
      } finally {
        await sandbox.close();
      }
      const outage = await payout(['sandbox', 'outage', '--hang', '1m']);
      expect(outage.code).toBe(2);
      expect(outage.stderr).toMatch(/no running gateway/i);
    },
    BUDGET_MS,
  );
});

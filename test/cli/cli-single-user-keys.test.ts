import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { budget, cliInFreshDataDir } from '../support/cli-process.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * Issue 38, section 2, finding 3: GATEWAY_SINGLE_USER=true with GATEWAY_API_KEYS. The
 * configuration page said the CLI without a key then acts as the one local operator; it was
 * refused as "read-only". Decided: a gateway with keys answers only a key it knows, so the
 * audit trail always names who acted; single-user only lets one key both import and approve.
 * The page and the CLI now say that, and the CLI behaves so.
 */
const { payout, dataDir } = cliInFreshDataDir('payout-cli-single-user-');
const env = { GATEWAY_SINGLE_USER: 'true', GATEWAY_API_KEYS: namedApiKeysEnv({ adam: 'admin' }) };
const reference = readFileSync(new URL('../../docs/operations/configuration.md', import.meta.url), 'utf8');
const row = (name: string) => reference.split('\n').find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';

describe('GATEWAY_SINGLE_USER with API keys', () => {
  it('the configuration page says a key is still needed, and what single-user does', () => {
    expect(row('GATEWAY_SINGLE_USER')).not.toMatch(/without a key acts as/);
    expect(row('GATEWAY_SINGLE_USER')).toMatch(/never stands in for a key/);
    expect(row('PAYOUT_CLI_KEY_FILE')).not.toMatch(/read-only/);
  });

  it(
    'the CLI without a key is refused, reads included, saying single-user does not stand in for one; with the key, one person imports and approves',
    { timeout: budget(3) },
    async () => {
      const payroll = join(dataDir(), 'payroll.csv');
      await writeFile(payroll, 'provider,amount,account\nbank-card-token,10.00,token_success\n');
      const run = await payout(['batch', 'run', payroll, '--yes'], env);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('GATEWAY_SINGLE_USER does not stand in for a key (it only lets one key both import and approve)');
      expect(run.stderr).not.toMatch(/read-only/);
      const list = await payout(['batch', 'list'], env);
      expect(list.code).toBe(2);
      expect(list.stderr).toMatch(/answers only a key it knows, reads included/);

      const keyFile = join(dataDir(), 'adam.key');
      await writeFile(keyFile, `${apiKey('adam')}\n`, { mode: 0o600 });
      const own = await payout(['batch', 'run', payroll, '--yes', '--json'], { ...env, PAYOUT_CLI_KEY_FILE: keyFile });
      expect(own.code, own.stderr).toBe(0);
      expect(JSON.parse(own.stdout).batch).toMatchObject({ status: 'COMPLETED', uploadedBy: 'key:adam', approvedBy: 'key:adam' });
    },
  );
});

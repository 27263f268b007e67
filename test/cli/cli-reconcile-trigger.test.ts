import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { budget, startPayout } from '../support/cli-process.ts';
import { freePort, GatewayProcess, killAllGateways } from '../support/gateway-process.ts';

/**
 * Issue 38, section 2, finding 4: a run `payout reconcile` starts is recorded as the command
 * line's (trigger CLI), not GRAPHQL, although the CLI goes through the API. The CLI says so
 * with x-payout-client; a request that says anything else, or nothing, is GRAPHQL, and no
 * header makes a run read as the daily schedule's.
 */
const dirs: string[] = [];
afterEach(async () => {
  await killAllGateways();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const START = 'mutation { startReconciliation { ... on StartReconciliationSuccess { run { id trigger } } } }';

describe('who started a reconciliation run', () => {
  it('CLI for payout reconcile, GRAPHQL for any other request, whatever it says of itself', { timeout: budget(3) }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'payout-reconcile-trigger-'));
    dirs.push(dataDir);
    const port = String(await freePort());
    const gateway = GatewayProcess.spawn('npm start', { DATA_DIR: dataDir, PORT: port });
    const url = await gateway.ready;
    const env = { DATA_DIR: dataDir, PORT: port, LANG: 'en_US.UTF-8', TZ: 'UTC' };

    const reconcile = await startPayout(['reconcile', '--today', '--json'], env).done;
    expect(reconcile.code, reconcile.stderr).toBe(0);
    const cliRun = (JSON.parse(reconcile.stdout) as { run: { id: string; trigger: string } }).run;
    expect(cliRun.trigger).toBe('CLI');

    const start = async (headers: Record<string, string>) => {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: START }),
      });
      const body = (await response.json()) as { data: { startReconciliation: { run: { id: string; trigger: string } } } };
      return body.data.startReconciliation.run;
    };
    expect((await start({})).trigger).toBe('GRAPHQL');
    expect((await start({ 'x-payout-client': 'schedule' })).trigger).toBe('GRAPHQL');

    const listed = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `query { reconciliationRun(id: "${cliRun.id}") { trigger } }` }),
    });
    expect(((await listed.json()) as { data: { reconciliationRun: { trigger: string } } }).data.reconciliationRun.trigger).toBe('CLI');
    expect(gateway.alive).toBe(true);
  });
});

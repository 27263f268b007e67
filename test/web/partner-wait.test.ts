import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { repoRoot, startPageRig, step, suite, uploadAndOpen } from '../support/browser.ts';

/**
 * Issue 19's "the page shows the batch paused with the reason and resumes it by itself", on a
 * page a clerk opened before the partner went down and never reloads: it follows
 * batchProgress, which must say when the breaker opens and when it closes though no row of
 * the batch changes (found by a walk-through: the open page said "Paying" through a
 * 2-minute outage). The gateway runs without its worker, so only the breaker changes.
 */
suite('the web page: a batch page left open hears the partner go down and come back', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  beforeAll(async () => {
    started = await startPageRig('payout-web-partner-wait-', { WORKER_IN_PROCESS: 'false', PAYOUT_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    await started?.gateway.upstream.sandbox?.outage.clear();
    await started?.close();
  });

  it('shows the wait while the breaker is open and takes it away once it closes, without a reload', async () => {
    const { gateway, rig, dataDir } = started;
    const { page } = rig;
    const file = join(dataDir, 'payroll.csv');
    await writeFile(file, await readFile(join(repoRoot, 'samples/payroll-valid.csv'), 'utf8'));
    await uploadAndOpen(rig, file);
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByText('Paying', { exact: true }).first().waitFor();
    const wait = page.getByText('Waiting: the Payout API answers with errors (5xx)');
    expect(await wait.count()).toBe(0);

    // The partner answers 503 to everything; a dozen reads open the breaker.
    const sandbox = gateway.upstream.sandbox!;
    await sandbox.outage.start({ mode: 'status', status: 503, retryAfterSeconds: 1, forMs: 600_000, kinds: [...allCallKinds] });
    await Promise.allSettled(Array.from({ length: 12 }, (_, i) => gateway.services.client.getPayment(`absent-${i}`)));
    await wait.waitFor();
    await step(rig, '26-open-page-partner-wait');

    // Back: the breaker's probe closes it, and the notice goes without the page being loaded again.
    await sandbox.outage.clear();
    await wait.waitFor({ state: 'detached' });
    expect(await page.getByText('Paying', { exact: true }).count()).toBeGreaterThan(0);
  });
});

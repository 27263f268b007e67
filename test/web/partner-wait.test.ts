import { expect, it } from 'vitest';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { approveSamplePayroll, pageRigWithoutWorker, step, suite } from '../support/browser.ts';

/**
 * Issue 19's "the page shows the batch paused with the reason and resumes it by itself", on a
 * page a clerk opened before the partner went down and never reloads: it follows
 * batchProgress, which must say when the breaker opens and when it closes though no row of
 * the batch changes (found by a walk-through: the open page said "Paying" through a
 * 2-minute outage). The gateway runs without its worker, so only the breaker changes.
 */
suite('the web page: a batch page left open hears the partner go down and come back', () => {
  const rigOf = pageRigWithoutWorker('payout-web-partner-wait-');

  it('shows the wait while the breaker is open and takes it away once it closes, without a reload', async () => {
    const { gateway, rig } = rigOf();
    const { page } = rig;
    await approveSamplePayroll(rigOf());
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

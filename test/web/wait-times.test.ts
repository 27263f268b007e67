import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { repoRoot, startPageRig, step, suite, uploadAndOpen } from '../support/browser.ts';

/**
 * Issue 29: times shown on the page are local, formatted and kept current. The wait notice
 * said "next probe at <ISO time>", in UTC, and never changed once that time had passed.
 */
suite('the web page: the times of a wait', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  beforeAll(async () => {
    started = await startPageRig('payout-web-wait-times-', { WORKER_IN_PROCESS: 'false', PAYOUT_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    await started?.gateway.upstream.sandbox?.outage.clear();
    await started?.close();
  });

  it('shows the next check in the page’s locale, counting down, with no ISO time', async () => {
    const { gateway, rig, dataDir } = started;
    const { page } = rig;
    const file = join(dataDir, 'payroll.csv');
    await writeFile(file, await readFile(join(repoRoot, 'samples/payroll-valid.csv'), 'utf8'));
    await uploadAndOpen(rig, file);
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByText('Paying', { exact: true }).first().waitFor();

    // 503 with Retry-After 120 s to everything: the breaker opens, its first probe two minutes on.
    const sandbox = gateway.upstream.sandbox!;
    await sandbox.outage.start({ mode: 'status', status: 503, retryAfterSeconds: 120, forMs: 600_000, kinds: [...allCallKinds] });
    await Promise.allSettled(Array.from({ length: 12 }, (_, i) => gateway.services.client.getPayment(`absent-${i}`)));
    const notice = page.getByRole('status').filter({ hasText: 'Waiting: the Payout API answers with errors (5xx)' });
    await notice.waitFor();
    const next = notice.getByText(/^Next check at /);
    await next.waitFor();
    const first = (await next.textContent())!;
    expect(await notice.textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    // en-GB: "12 Dec 2026, 14:03:12"; the countdown in words.
    expect(first).toMatch(/^Next check at \d{1,2} \w{3} \d{4}, \d{2}:\d{2}:\d{2} \(in (\d+ min )?\d+ s\)\.$/);
    // Kept current: the countdown moves without a reload or an event.
    await page.waitForFunction((shown) => document.body.innerText.includes('Next check at') && !document.body.innerText.includes(shown), first);
    await step(rig, '41-wait-times');
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/app/start-gateway.ts';
import { repoRoot, startPageRig, step, suite, uploadAndOpen, type Rig } from '../support/browser.ts';

/**
 * Issue 19, items 4 and 6 as a clerk would try them in Chromium: a running batch is paused
 * from its page, which then says who paused it, since when and what it waits for, with
 * "waiting" instead of a time left; Resume sets it paying again. The gateway runs without
 * its worker, so the batch stays where the clicks put it.
 */
suite('the web page: pause and resume a batch', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let gateway: RunningGateway;
  let rig: Rig;

  beforeAll(async () => {
    started = await startPageRig('payout-web-pause-', { WORKER_IN_PROCESS: 'false' });
    ({ gateway, rig } = started);
  });

  afterAll(() => started?.close());

  it('pauses from the page, says why and since when, and resumes', async () => {
    const { page } = rig;
    await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-valid.csv'));
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paying/ }).waitFor();

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText(/^Pause this batch\?/).waitFor();
    await page.getByRole('group').getByRole('button', { name: 'Pause' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paused/ }).waitFor();
    const notice = page.locator('.progress-panel .notice-warn');
    await notice.getByText(/^Paused by you \(local single-user mode\)/).waitFor();
    await notice.getByText('Waiting for: a person to resume it').waitFor();
    expect(await notice.innerText()).toMatch(/since /);
    await page.getByText('waiting', { exact: true }).waitFor();
    await step(rig, '19-batch-paused');

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Resume' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paying/ }).waitFor();
    expect(await page.locator('.progress-panel .notice-warn').count()).toBe(0);
    expect(rig.problems).toEqual([]);
  });
});

import { expect, it } from 'vitest';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { approveSamplePayroll, pageRigWithoutWorker, step, suite } from '../support/browser.ts';

/**
 * Issue 29: times shown on the page are local, formatted and kept current. The wait notice
 * said "next probe at <ISO time>", in UTC, and never changed once that time had passed.
 */
suite('the web page: the times of a wait', () => {
  const rigOf = pageRigWithoutWorker('payout-web-wait-times-');

  it('shows the next check in the page’s locale, counting down, with no ISO time', async () => {
    const { gateway, rig } = rigOf();
    const { page } = rig;
    await approveSamplePayroll(rigOf());

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
    await page.waitForFunction(
      (shown) => document.body.innerText.includes('Next check at') && !document.body.innerText.includes(shown),
      first,
    );
    await step(rig, '41-wait-times');
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, startPageRig, step, suite, uploadAndOpen, type Rig } from '../support/browser.ts';

/**
 * Issue 30, scheduled batches, as a clerk would try them in Chromium: the approval offers
 * "Pay now" or a date and time in the clerk's zone; the batch page then says when it pays,
 * with Reschedule and Cancel; the list shows the upcoming paydays. The gateway runs without
 * its worker, so nothing but the clicks moves the batch.
 */
suite('the web page: schedule a payroll for its day', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let rig: Rig;

  beforeAll(async () => {
    started = await startPageRig('payout-web-schedule-', { WORKER_IN_PROCESS: 'false' });
    ({ rig } = started);
  });

  afterAll(() => started?.close());

  /** A datetime-local value in the browser's zone, days ahead at 09:00. */
  const localDay = (days: number, hour = '09:00') => {
    const at = new Date(Date.now() + days * 86_400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${hour}`;
  };

  it('schedules from the approval, shows when it pays, reschedules, lists it among the upcoming paydays, and cancels it', async () => {
    const { page } = rig;
    const batchId = await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-valid.csv'));
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    const confirm = page.getByRole('group', { name: /^Pay 10 rows/ });
    await confirm.getByRole('radio', { name: 'Pay now' }).waitFor();
    await confirm.getByRole('radio', { name: 'Pay on a date and time' }).check();
    await confirm.getByLabel(/^Date and time/).fill(localDay(2));
    await step(rig, '30-approve-schedule');
    await confirm.getByRole('button', { name: 'Schedule the payment' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Scheduled/ }).waitFor();
    const notice = page.locator('.notice.scheduled');
    await notice.getByText(/^Scheduled for \w+day/).waitFor();
    expect(await notice.innerText()).toMatch(/09:00/);
    // When the forecast reads the balance, from SCHEDULE_FORECAST_LEAD_HOURS (24): the day before, at 09:00
    // (it said "a day before" whatever the setting, and for a batch due in minutes too).
    await notice.getByText(/^The balance is read again on \w+day \d+ \w{3}, 09:00\.$/).waitFor();
    await step(rig, '30-batch-scheduled');

    await page.getByRole('button', { name: 'Reschedule' }).click();
    await page
      .getByRole('group')
      .getByLabel(/^Date and time/)
      .fill(localDay(3, '10:30'));
    await page.getByRole('group').getByRole('button', { name: 'Reschedule' }).click();
    await page.getByText('Rescheduled.').waitFor();
    expect(await notice.innerText()).toMatch(/10:30/);

    await page.goto('/#/');
    const upcoming = page.locator('section.upcoming');
    await upcoming.getByRole('heading', { name: 'Upcoming paydays' }).waitFor();
    await upcoming.locator(`a[href="#/batches/${batchId}"]`).waitFor();
    expect(await upcoming.innerText()).toMatch(/10:30/);
    await step(rig, '30-upcoming-paydays');

    // In Russian: the payday in the reader's language, the list's heading and the badge.
    await page.getByRole('button', { name: 'Русский' }).click();
    await upcoming.getByRole('heading', { name: 'Ближайшие выплаты' }).waitFor();
    await page.goto(`/#/batches/${batchId}`);
    await page
      .locator('.notice.scheduled')
      .getByText(/^Запланирован на /)
      .waitFor();
    await page.locator('.batch-head .badge', { hasText: /^Запланирован/ }).waitFor();
    await step(rig, '30-batch-scheduled-ru');
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: /^Batch /, level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Cancel batch' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Cancel batch' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Cancelled/ }).waitFor();
    expect(rig.problems).toEqual([]);
  });
});

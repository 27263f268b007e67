import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildWebPage, launch, openPage, step, suite, type Rig, signIn as signInAs } from '../support/browser.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { alterUpstream, payBehind, today } from '../support/reconciliation.ts';
import { sbpPayment } from '../support/sandbox.ts';
import { apiKey } from '../support/keys.ts';

const KEYS = { operator: apiKey('recon-operator'), viewer: apiKey('recon-viewer') };

/**
 * The Reconciliation view in Chromium against a real gateway, sandbox and database: start a
 * run from the page, follow it, read its totals and discrepancies grouped by code,
 * download them, and see a refused period and a viewer's page.
 */
suite('the web page: reconciliation in Chromium', () => {
  let gw: TestGateway;
  let browser: Browser;
  let rig: Rig;

  beforeAll(async () => {
    buildWebPage();
    gw = await startTestGateway({
      env: { WORKER_IN_PROCESS: 'false', GATEWAY_API_KEYS: `${KEYS.operator}:operator,${KEYS.viewer}:viewer` },
      sandbox: { inProgressMs: 60_000 },
    });
    browser = await launch();
    rig = await openPage(browser, gw.gateway.url);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  async function signIn(key: string) {
    const { page } = rig;
    await page.goto('/#/reconciliation');
    await signInAs(page, key);
    await page.getByRole('heading', { name: 'Reconciliation', level: 1 }).waitFor();
  }

  /** The page as it stands, in Russian once `heading` shows, then in English again: the same step checks. */
  async function inRussian(heading: string | RegExp, name: string) {
    const { page } = rig;
    await page.getByRole('button', { name: 'Русский' }).click();
    await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
    await step(rig, name);
    await page.getByRole('button', { name: 'English' }).click();
  }

  /** A day ("2026-11-27") as the English page writes it ("27 Nov 2026"). */
  const readableDay = (day: string) =>
    new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

  it('starts a run for today, follows it, and shows both sides and the discrepancies by code', async () => {
    const { page } = rig;
    const payments = gw.services().payments;
    await payments.create({ paymentId: 'web-rec-1', payload: sbpPayment('sbp_bank_id_success', '300.00'), execute: true });
    await payments.create({ paymentId: 'web-rec-2', payload: sbpPayment('sbp_bank_id_success', '200.00'), execute: true });
    await payments.create({ paymentId: 'web-rec-3', payload: sbpPayment('sbp_bank_id_success', '100.00'), execute: true });
    await alterUpstream(gw.sb, 'web-rec-2', { status: 'FAILED', errorCode: 'BILLING_DECLINED' });
    await alterUpstream(gw.sb, 'web-rec-3', { commission: '99.00' });
    await payBehind(gw.sb, { paymentId: 'web-rec-behind', amount: '1500.00' });

    await signIn(KEYS.operator);
    await page.getByText('No reconciliation has run yet.').waitFor();
    await page.getByLabel('From').fill(today());
    await page.getByLabel('To (included)').fill(today());
    await page.getByRole('button', { name: 'Start' }).click();

    await page.getByRole('heading', { name: `Reconciliation of ${readableDay(today())}`, level: 1 }).waitFor();
    await page.locator('.badge', { hasText: 'Completed' }).first().waitFor();
    await page.getByRole('heading', { name: 'Unknown to the gateway (1)' }).waitFor();
    await page.getByRole('heading', { name: 'Status differs (1)' }).waitFor();
    await page.getByRole('heading', { name: 'Commission differs (1)' }).waitFor();
    await expect(page.getByRole('status').filter({ hasText: 'discrepancies' }).textContent()).resolves.toContain(
      '1 payments match; 3 discrepancies: 3 open, 0 repaired.',
    );

    // Both sides: the partner holds one payment more, and one fewer completed.
    const sides = page.locator('.sides');
    await expect(sides.getByRole('row', { name: /^Payments/ }).textContent()).resolves.toMatch(/Payments\s*differs\s*4\s*3/);
    await expect(sides.locator('tr.differs').count()).resolves.toBeGreaterThanOrEqual(3);
    const status = page.locator('section', { has: page.getByRole('heading', { name: 'Status differs (1)' }) });
    await expect(status.getByRole('row', { name: /web-rec-2/ }).textContent()).resolves.toMatch(/web-rec-2.*Completed.*Failed.*both.*Open/);
    await step(rig, '15-reconciliation-run');
    await inRussian(/^Статус расходится \(1\)/, '15-reconciliation-run-ru');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('group', { name: 'Discrepancies' }).getByRole('button', { name: 'CSV', exact: true }).click(),
    ]);
    const csv = (await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, '');
    expect(
      csv
        .trim()
        .split('\r\n')
        .map((line) => line.split(',')[0]),
    ).toEqual(['code', 'UNKNOWN_TO_GATEWAY', 'STATUS_DIFFERS', 'COMMISSION_DIFFERS']);

    await page.getByRole('link', { name: 'All reconciliation runs' }).click();
    const row = page.getByRole('row', { name: new RegExp(readableDay(today())) });
    await row.waitFor();
    await expect(row.textContent()).resolves.toMatch(/Completed.*this page or the API\s*3\s*0\s*1/);
    await step(rig, '14-reconciliation-runs');
    await inRussian('Сверка', '14-reconciliation-runs-ru');
  });

  it('refuses a period the partner no longer keeps, next to the field it names', async () => {
    const { page } = rig;
    await page.getByLabel('From').fill('2020-01-01');
    await page.getByLabel('To (included)').fill('2020-01-02');
    await page.getByRole('button', { name: 'Start' }).click();
    const alert = page.locator('#recon-from-error');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toMatch(
      /older than the upstream keeps payments \(50 days\): the earliest day that can be reconciled today is \d{1,2} [A-Z][a-z]{2} \d{4}/,
    );
    await expect(page.getByLabel('From').getAttribute('aria-invalid')).resolves.toBe('true');
    await step(rig, '16-reconciliation-period-error');
    await inRussian('Сверка', '16-reconciliation-period-error-ru');
  });

  it('shows a viewer the runs but no way to start one', async () => {
    const { page } = rig;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(KEYS.viewer);
    await page.getByRole('row', { name: new RegExp(readableDay(today())) }).waitFor();
    await expect(page.getByRole('button', { name: 'Start' }).count()).resolves.toBe(0);
    await step(rig, '17-reconciliation-viewer');
  });
});

import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { repoRoot, startPageRig, step, suite, uploadAndOpen, WAIT_MS, type Rig } from '../support/browser.ts';

/**
 * Issue 38, section 3 (findings 1, 4, 6 and 7) as a clerk met them on the page, in Chromium
 * against a real gateway and its worker: a row held for a changed account counted apart in
 * the list and filtered by its own reason, a file with row errors called one thing, a
 * duplicate upload said in the page's time with its batch linked and its way to repeat, a
 * discarded batch that no longer reads as to pay, and machine words where a clerk reads.
 */
suite('the web page: what the clerk met on payday (issue 38)', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let rig: Rig;
  let dataDir: string;

  beforeAll(async () => {
    started = await startPageRig('payout-web-clerk-words-');
    ({ rig, dataDir } = started);
  });
  afterAll(() => started?.close());

  const listRow = (page: Page, id: string) => page.locator('table.batches tbody tr', { has: page.locator(`a[href="#/batches/${id}"]`) });
  const fact = (page: Page, name: string) =>
    page.locator('dl.facts > div', { has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) });

  it('counts a row held for a changed account apart in the list, and filters the rows by it', async () => {
    const { page } = rig;
    await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-payees.csv'));
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Completed/ }).waitFor();
    const next = await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-payees-next.csv'));

    // The rows filter: each reason a row is held for, by its own name.
    const filter = page.getByLabel('Row status');
    await filter.selectOption({ label: 'Held: account changed' });
    const rows = page.getByRole('table', { name: 'Rows' });
    await page.waitForFunction(() => document.querySelectorAll('table.items-table tbody tr').length === 1, undefined, { timeout: WAIT_MS });
    await rows.getByText('Held: account changed', { exact: true }).waitFor();
    await filter.selectOption({ label: 'Held: repeats a payment' });
    await page.getByText('No rows with this status.').waitFor();

    await page.goto('/#/');
    const row = listRow(page, next);
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    expect(cells[3]).toBe('2\n+1 held: account changed');
    expect(cells[5]).toBe('₽23,000.00\nheld ₽12,500.50: account changed');
    await step(rig, '38-batches-changed-account-apart');
  });

  it('calls a file with row errors one thing, and says a duplicate upload in the page’s time with its batch and a way to repeat it', async () => {
    const browser = rig.context.browser()!;
    // The clerk of the issue: a page in Moscow time, where a time "in UTC" is three hours off.
    const context = await browser.newContext({
      baseURL: started.gateway.url,
      viewport: { width: 1280, height: 860 },
      locale: 'en-GB',
      timezoneId: 'Europe/Moscow',
    });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      const moscow: Rig = { page, context, problems: [] };
      const file = join(dataDir, 'payroll-once.csv');
      await writeFile(
        file,
        'reference,provider,amount,currency,pan,cardholder_name,cardholder_lastname\nONCE-1,bank-card-russia,500.00,RUB,2200000000000004,IVAN,IVANOV\n',
      );
      const first = await uploadAndOpen(moscow, file);

      await page.goto('/#/upload');
      await page.getByLabel('Choose a file').setInputFiles(file);
      const result = page.locator('.upload-result');
      const duplicate = result.locator('section.problem-group[data-code="file.duplicate"]');
      await duplicate.waitFor();
      const message = await duplicate.locator('tbody').innerText();
      expect(message).not.toMatch(/UTC/);
      // The earlier batch linked, and the repeat the message speaks of offered on the page.
      await duplicate.getByRole('link', { name: `Open batch ${first}` }).waitFor();
      await result.getByRole('button', { name: 'Upload it again as a repeat' }).waitFor();
      // A refused upload of nothing: only taken off the list, nothing to discard.
      expect(await result.getByRole('button', { name: 'Discard' }).count()).toBe(0);
      await result.getByRole('button', { name: 'Remove from the list' }).waitFor();
      expect(await visibleCodes(page)).toEqual([]);
      await step(moscow, '38-duplicate-upload');
      // Sent again on purpose: a batch of its own, forced, nothing of the earlier one paid twice.
      const refused = await result.locator('h2 a').getAttribute('href');
      await result.getByRole('button', { name: 'Upload it again as a repeat' }).click();
      await page.waitForFunction((before) => document.querySelector('.upload-result h2 a')?.getAttribute('href') !== before, refused, {
        timeout: WAIT_MS,
      });
      const repeat = (await result.locator('h2 a').getAttribute('href'))!.split('/').pop()!;
      expect(repeat).not.toBe(first);
      expect((await started.gateway.services.prisma.batch.findUniqueOrThrow({ where: { id: repeat } })).forced).toBe(true);

      // Discarded before approval: nothing to pay, nobody to approve.
      await page.goto(`/#/batches/${first}`);
      await page.getByRole('button', { name: 'Discard' }).click();
      await page.getByRole('group').getByRole('button', { name: 'Discard' }).click();
      await page.getByText('Discarded: nothing was paid.').waitFor();
      expect(await fact(page, 'To pay').locator('dd').innerText()).toBe('nothing: discarded before approval');
      expect(await fact(page, 'Who may approve').count()).toBe(0);
      await step(moscow, '38-discarded-batch');

      // Row errors: the list says what the batch page says.
      const errors = await uploadAndOpen(moscow, join(repoRoot, 'samples/payroll-errors.csv'));
      await page.locator('.batch-head .badge', { hasText: /^Has row errors$/ }).waitFor();
      // Its valid rows still await approval: not "Final".
      expect(await page.locator('.batch-head').innerText()).not.toMatch(/Final/);
      await page.goto('/#/');
      await listRow(page, errors).getByText('Has row errors', { exact: true }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('shows no machine words where a clerk reads: recipients, providers, templates, problem codes, the nav at 1280 px', async () => {
    const { page } = rig;
    const id = await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-valid.csv'));
    const table = page.getByRole('table', { name: 'Rows' });
    await table.locator('tbody tr').first().waitFor();
    const text = await table.innerText();
    expect(text).not.toMatch(/\bpan:|cardholder_name|bankId:|bank-card-russia|sbp-b2c/);
    expect(text).toMatch(/Bank card \(Russia\)/);
    expect(text).toMatch(/IVAN IVANOV/);
    expect(await visibleCodes(page)).toEqual([]);
    await step(rig, '38-rows-in-words');

    await page.getByRole('button', { name: 'Русский' }).click();
    const headers = await page.getByRole('table', { name: 'Строки' }).locator('thead th').allInnerTexts();
    expect(headers.filter((h) => h === 'Получатель')).toHaveLength(1);
    // The nav on one line at 1280 px, in the longer language too.
    expect(await navLines(page)).toBe(1);
    await step(rig, '38-rows-in-words-ru');
    await page.getByRole('button', { name: 'English' }).click();

    await page.goto('/#/upload');
    await page.getByText('Templates', { exact: false }).first().click();
    const templates = await page.locator('details.templates').innerText();
    expect(templates).not.toMatch(/bank-card-russia-gph|sbp-b2c/);
    expect(templates).toMatch(/Bank card \(Russia\), civil-law contract/);

    // The nav on one line at 1280 px: every link at the first link's height.
    expect(await navLines(page)).toBe(1);
    expect(id).toMatch(/^b/);
  });
});

/** How many lines the nav's links take (every link at one height: one line). */
async function navLines(page: Page): Promise<number> {
  const tops = await page
    .locator('nav.main-nav a')
    .evaluateAll((links) => links.map((link) => Math.round(link.getBoundingClientRect().top)));
  return new Set(tops).size;
}

/** Problem codes shown as text (not kept for tools in data-code): "row.account-changed" beside its title. */
async function visibleCodes(page: Page): Promise<string[]> {
  const text = await page.locator('main').innerText();
  return [...text.matchAll(/\b(?:row|file|amount|provider|field|reference|balance)\.[a-z][a-z-]+\b/g)].map((m) => m[0]);
}

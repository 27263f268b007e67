import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, startPageRig, step, suite, uploadAndOpen, type Rig } from '../support/browser.ts';

/**
 * Issue 29 ("One front door") findings 3, 4, 6 and 7 as a new user meets them on the page,
 * in Chromium against a real gateway and its sandbox: what a batch pays apart from its held
 * rows, its commission, labels that say what a batch is and what a button does, a batch that
 * paid nothing taken off the list, and no machine text (codes, enum names, raw amounts).
 */
suite('the web page: totals, commission and states a person can read', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let rig: Rig;
  let dataDir: string;

  beforeAll(async () => {
    started = await startPageRig('payout-web-totals-');
    ({ rig, dataDir } = started);
  });
  afterAll(() => started?.close());

  const fact = (name: string) =>
    rig.page.locator('dl.facts > div', { has: rig.page.locator('dt', { hasText: new RegExp(`^${name}$`) }) }).locator('dd');
  /** Machine text a person should never read: enum names, amounts as the API writes them, ISO times. */
  async function machineText(): Promise<string[]> {
    const text = await rig.page.locator('main').innerText();
    return [...text.matchAll(/\b[A-Z]+(?:_[A-Z]+)+\b|\b\d+\.\d{2} [A-Z]{3}\b|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|Rows: Rows/g)].map((m) => m[0]);
  }

  let first: string;
  let again: string;
  it('shows the rows to pay and the held rows apart, in the list, on the batch page and in the question', async () => {
    const { page } = rig;
    first = await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-valid.csv'));
    // Before approval: the commission an approval would start, not a note to look elsewhere.
    await fact('Commission')
      .getByText(/^about .+ \(estimate before approval\)$/)
      .waitFor();
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Completed/ }).waitFor();
    // What the partner charged for the 7 paid rows.
    await fact('Commission')
      .getByText(/^₽[\d,]+\.\d{2} charged so far$/)
      .waitFor();
    expect(await fact('Commission').innerText()).not.toMatch(/^₽0\.00/);

    const [header, ...rows] = (await readFile(join(repoRoot, 'samples/payroll-valid.csv'), 'utf8')).trimEnd().split('\n');
    const resorted = join(dataDir, 'payroll-resorted.csv');
    await writeFile(resorted, `${[header, ...rows.reverse()].join('\r\n')}\r\n`);
    again = await uploadAndOpen(rig, resorted);
    expect(await fact('To pay').innerText()).toBe('₽4,000.00, 3 rows');
    expect(await fact('Held back, not paid').innerText()).toBe('₽46,950.60, 7 rows');
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByText(/^Pay 3 rows, ₽4,000\.00 in total/).waitFor();
    await page.getByRole('button', { name: 'Back' }).click();
    expect(await machineText()).toEqual([]);
    await step(rig, '26-batch-held-apart');

    await page.goto('/#/');
    const row = page.locator('table.batches tbody tr', { has: page.locator(`a[href="#/batches/${again}"]`) });
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    // Uploaded, status, rows, to pay (+held), with errors, amount (held apart), progress.
    expect(cells[3]).toBe('3\n+7 held');
    expect(cells[5]).toBe('₽4,000.00\nheld ₽46,950.60');
    expect(await machineText()).toEqual([]);
    await step(rig, '27-batches-held-apart');

    await page.getByRole('button', { name: 'Русский' }).click();
    await page.getByRole('heading', { name: 'Реестры', level: 1 }).waitFor();
    expect((await row.locator('td').allInnerTexts())[5]).toMatch(/^4\s000,00\s₽\nотложено 46\s950,60\s₽$/);
    await step(rig, '28-batches-ru');
    await page.goto(`/#/batches/${again}`);
    await page.getByRole('heading', { name: /^Реестр /, level: 1 }).waitFor();
    expect(await fact('К выплате').innerText()).toMatch(/^4\s000,00\s₽, 3 строки$/);
    expect(await machineText()).toEqual([]);
    await step(rig, '29-batch-ru');
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: /^Batch /, level: 1 }).waitFor();
  });

  it('says "Has row errors" for a file whose valid rows can be approved, and that discarding it sent nothing', async () => {
    const { page } = rig;
    const id = await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-errors.csv'));
    await page.locator('.batch-head .badge', { hasText: /^Has row errors$/ }).waitFor();
    await page.getByRole('button', { name: 'Approve valid rows only' }).waitFor();
    expect(await page.locator('.batch-head .badge').innerText()).not.toBe('Rejected');
    await page.getByRole('button', { name: 'Discard' }).click();
    const question = await page.locator('#confirm-question').innerText();
    expect(question).toMatch(/nothing was sent/);
    expect(question).not.toMatch(/already sent will finish/);
    await step(rig, '30-discard-question');
    await page.getByRole('group').getByRole('button', { name: 'Discard' }).click();
    await page.getByText('Discarded: nothing was paid.').waitFor();

    // Taken off the list, kept on record: "Show dismissed" lists it again.
    await page.getByRole('button', { name: 'Remove from the list' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Remove from the list' }).click();
    await page.getByText(/^Removed from the batch list by /).waitFor();
    await page.goto('/#/');
    await page.locator(`a[href="#/batches/${again}"]`).waitFor();
    expect(await page.locator(`a[href="#/batches/${id}"]`).count()).toBe(0);
    await page.getByLabel('Show dismissed').check();
    await page.locator(`a[href="#/batches/${id}"]`).waitFor();
  });

  it('dismisses a rejected upload from the list itself', async () => {
    const { page } = rig;
    const empty = join(dataDir, 'no-valid-rows.csv');
    await writeFile(empty, 'reference,provider,amount,currency,pan\nONE-1,paypal,100.00,RUB,\n');
    const id = await uploadAndOpen(rig, empty);
    await page.locator('.batch-head .badge', { hasText: /^Rejected$/ }).waitFor();
    // The problem group of the whole file by its title, its code kept for tools (data-code); "1 row", not "1 rows" or "Rows: Rows".
    await page
      .locator('section.problem-group[data-code="file.no-valid-rows"]')
      .getByRole('heading', { name: /^No row can be paid/, level: 3 })
      .waitFor();
    expect(await fact('Rows').innerText()).toMatch(/^1 row · valid: 0/);
    expect(await machineText()).toEqual([]);

    await page.goto('/#/');
    const row = page.locator('table.batches tbody tr', { has: page.locator(`a[href="#/batches/${id}"]`) });
    await row.getByRole('button', { name: 'Dismiss no-valid-rows.csv from the list' }).click();
    await row.waitFor({ state: 'detached' });
    await page.locator(`a[href="#/batches/${again}"]`).waitFor();
    // Kept on record: "Show dismissed" lists it, marked.
    await page.getByLabel('Show dismissed').check();
    await row.getByText('Dismissed', { exact: true }).waitFor();
    expect(rig.problems).toEqual([]);
  });
});

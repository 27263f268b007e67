import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/app/start-gateway.ts';
import { repoRoot, startPageRig, step, submitKey, suite, type Rig } from '../support/browser.ts';
import { apiKey } from '../support/keys.ts';

/**
 * The payroll clerk's journey in a real browser (Debian's Chromium driven by
 * playwright-core) against a real gateway with its embedded sandbox and database: every
 * step through the page only, each page state checked with axe-core. With
 * UPDATE_SCREENSHOTS=1 each step is saved to docs/screenshots/ for docs/guide/web-page.md.
 */

/** Drops a file on the drop zone as a browser does: a drop event carrying a DataTransfer. */
async function dropFile(page: Page, selector: string, path: string, type: string): Promise<void> {
  const bytes = [...(await readFile(path))];
  const name = path.split('/').pop()!;
  const transfer = await page.evaluateHandle(
    ({ bytes, name, type }) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], name, { type }));
      return data;
    },
    { bytes, name, type },
  );
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

suite('the web page: a payroll clerk’s journey in Chromium', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let gateway: RunningGateway;
  let rig: Rig;

  beforeAll(async () => {
    // The held execute answer must outlast the client's wait for it however slow the machine,
    // or the worker would read the payment back and finish the row before the page is seen.
    // Trusted documents only: the page must work from its manifest alone (documentId).
    started = await startPageRig('payout-web-', { PAYOUT_HEADERS_TIMEOUT_MS: '600000', GATEWAY_TRUSTED_DOCUMENTS: 'only' });
    ({ gateway, rig } = started);
  });

  afterAll(() => started?.close());

  it('serves the page with a strict Content-Security-Policy and long-cached hashed assets', async () => {
    const page = await request(`${gateway.url}/`);
    const html = await page.body.text();
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    // No inline script and nothing from another origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await request(`${gateway.url}${script}`);
    await asset.body.text();
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const zipped = await request(`${gateway.url}${script}`, { headers: { 'accept-encoding': 'gzip, br' } });
    const zippedBytes = Buffer.from(await zipped.body.arrayBuffer());
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zippedBytes).toString('utf8')).toBe(await (await request(`${gateway.url}${script}`)).body.text());
    // A budget against an accidental library, not a target: 30 kB until issue 19 added the
    // pause and review panels (30.2 kB gzipped at level 9 then); 34 kB once issue 29 added held
    // rows apart, commission, dismissing and plural forms in both languages (33.1 kB then); 35 kB
    // once issue 30 added approvals by policy in both languages (34.7 kB as served then); 36 kB
    // once issue 30's scheduling and payee marks joined them (37.1 kB as served), after the pages
    // a clerk does not open every time went to chunks of their own (lazy-pages.tsx: 35.0 kB then).
    expect(zippedBytes.length).toBeLessThan(36_000);
    const again = await request(`${gateway.url}${script}`, { headers: { 'if-none-match': String(asset.headers.etag) } });
    await again.body.text();
    expect(again.statusCode).toBe(304);
    const missing = await request(`${gateway.url}/assets/nope.js`);
    await missing.body.text();
    expect(missing.statusCode).toBe(404);
    // The key-less browser guard covers the page too: a rebound name gets nothing.
    const rebound = await request(`${gateway.url}/`, { headers: { host: 'evil.example' } });
    await rebound.body.text();
    expect(rebound.statusCode).toBe(403);
  });

  it('opens in local mode with an empty batch list', async () => {
    const { page } = rig;
    await page.goto('/');
    await page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();
    await page.getByText('Local mode: no API key needed').waitFor();
    await page.getByText('No batches yet.').waitFor();
    await step(rig, '01-batches-empty');

    // By keyboard: the opened page's heading has focus; Tab moves through the controls with
    // a visible focus ring, and Enter follows a link.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    const focused = () =>
      page.evaluate(() => ({
        text: document.activeElement?.textContent ?? '',
        outline: getComputedStyle(document.activeElement!).outlineStyle,
      }));
    await page.keyboard.press('Tab');
    expect((await focused()).outline).toBe('solid');
    for (let i = 0; i < 10 && (await focused()).text !== 'Upload a file'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ text: 'Upload a file', outline: 'solid' });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Upload a payroll file', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Batches' }).click();
    await page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();
  });

  it('uploads a file with errors and shows the report grouped by problem', async () => {
    const { page } = rig;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Upload a file' }).click();
    await page.getByRole('heading', { name: 'Upload a payroll file', level: 1 }).waitFor();
    await page.getByLabel('Choose a file').setInputFiles(join(repoRoot, 'samples/payroll-errors.csv'));
    await page.getByRole('heading', { name: 'Validation report' }).waitFor();

    const unknownProvider = page.locator('section.problem-group[data-code="provider.unknown"]');
    await unknownProvider.getByRole('heading', { name: /Unknown payment method/ }).waitFor();
    const firstRow = unknownProvider.locator('tbody tr').first();
    expect(await firstRow.locator('td').nth(0).textContent()).toBe('2');
    expect(await firstRow.locator('td').nth(1).textContent()).toBe('provider');
    expect(await firstRow.locator('td').nth(2).textContent()).toMatch(/paypal/);

    const amountFormat = page.locator('section.problem-group[data-code="amount.format"]');
    expect(await amountFormat.locator('tbody tr').count()).toBeGreaterThanOrEqual(3);
    await page.locator('section.problem-group[data-code="reference.duplicate"]').waitFor();
    // Errors first, then warnings; the file has row errors, and a clerk may still pay the valid rows.
    await page.locator('.upload-result .badge', { hasText: 'Has row errors' }).waitFor();
    await page.getByRole('button', { name: 'Approve valid rows only' }).waitFor();
    await page.getByRole('button', { name: 'Discard' }).waitFor();
    await step(rig, '02-upload-report-with-errors');

    // Discarding asks first, then cancels the batch.
    await page.getByRole('button', { name: 'Discard' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Discard' }).click();
    await page.locator('.upload-result .badge', { hasText: 'Cancelled' }).waitFor();

    // An Excel workbook dropped as it is: the report names the sheet's own row numbers.
    await dropFile(
      page,
      '.dropzone',
      join(repoRoot, 'test/fixtures/payroll-errors.xlsx'),
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    await page.locator('.upload-result h2 a', { hasText: 'payroll-errors.xlsx' }).waitFor();
    const sheetProvider = page.locator('section.problem-group[data-code="provider.unknown"]');
    await sheetProvider.locator('tbody tr td', { hasText: 'mir-pay' }).waitFor();
    expect(await sheetProvider.locator('tbody tr td').first().textContent()).toBe('5');
    await page
      .locator('section.problem-group[data-code="row.empty"]')
      .getByRole('heading', { name: /Empty rows skipped/ })
      .waitFor();
    await step(rig, '03-upload-xlsx-with-errors');
  });

  let batchId: string;

  it('uploads a valid file by drag and drop, approves it and watches it finish', async () => {
    const { page } = rig;
    await dropFile(page, '.dropzone', join(repoRoot, 'samples/payroll-valid.csv'), 'text/csv');
    // No errors; the sample's spaced card number is tidied up and reported as a warning.
    await page.getByText('10 rows · valid: 10 · with errors: 0 · warnings: 1').first().waitFor();
    await page.locator('.upload-result .badge', { hasText: 'Ready to approve' }).waitFor();
    await step(rig, '04-upload-valid');

    // One execute answer is held back by the sandbox, so the run is caught half-way.
    const sandbox = gateway.upstream.sandbox!;
    sandbox.faults.add({ operation: 'execute', kind: 'hold-after', times: 1 });
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    // The commission quoted is approval's estimate: no history yet, so COMMISSION_ESTIMATE_PERCENT (2 %).
    await page.getByText(/^Pay 10 rows, .+ in total, plus about .+ commission\?$/).waitFor();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();

    await page.waitForURL(/#\/batches\/[A-Za-z0-9]+$/);
    batchId = /#\/batches\/([A-Za-z0-9]+)$/.exec(page.url())![1]!;
    await page.getByRole('heading', { name: 'Batch payroll-valid.csv', level: 1 }).waitFor();
    // Live: the page loaded the batch once; everything after comes over the SSE subscription.
    await page.getByText('9 of 10 rows finished · Paying').waitFor();
    await page.locator('.live.on', { hasText: 'Live' }).waitFor();
    const inFlight = page.locator('.progress-panel dt', { hasText: 'In flight' }).locator('xpath=..').locator('dd');
    expect(await inFlight.textContent()).toBe('1');
    expect(Number(await page.getByRole('progressbar', { name: 'Progress' }).getAttribute('aria-valuenow'))).toBe(90);
    expect(sandbox.held()).toHaveLength(1);
    // The rows table follows too: the held row is the one still executing.
    await page.locator('table.items-table .badge', { hasText: 'Executing' }).waitFor();
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('table.items-table .badge')].filter((b) => /^(Completed|Failed)$/.test(b.textContent ?? ''))
          .length === 9,
    );
    await step(rig, '05-batch-running');
    expect(sandbox.releaseHeld()).toBe(1);
    // The sample pays 7 rows and fails 3 (sandbox outcomes); the bar reaches 100 % only at the end.
    await page.locator('.batch-head .badge', { hasText: 'Completed with failures' }).waitFor();
    await page.getByText('10 of 10 rows finished').waitFor();
    expect(await page.getByRole('progressbar', { name: 'Progress' }).getAttribute('aria-valuenow')).toBe('100');
    const paid = page.locator('.progress-panel dt', { hasText: 'Paid' }).locator('xpath=..').locator('dd');
    expect(await paid.textContent()).toMatch(/^7 · /);
    await page.getByRole('button', { name: 'Pay failed rows again' }).waitFor();
    await page.locator('table.items-table tbody tr').nth(9).waitFor();
    await step(rig, '06-batch-finished');

    await page.getByLabel('Row status').selectOption('FAILED');
    await page.locator('table.items-table tbody tr').first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('table.items-table tbody tr').length === 3);
    await step(rig, '07-batch-failed-rows');
    await page.getByLabel('Row status').selectOption('');
  });

  it('downloads the results as CSV, as CSV for a Russian-locale Excel and as a workbook', async () => {
    const { page } = rig;
    const results = page.getByRole('group', { name: 'Results' });
    const save = async (button: string) => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        results.getByRole('button', { name: button, exact: true }).click(),
      ]);
      return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
    };

    const csv = await save('CSV');
    expect(csv.name).toBe(`batch-${batchId}-results.csv`);
    const text = csv.bytes.toString('utf8').replace(/^\uFEFF/, '');
    const lines = text.trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/^line,reference,provider,amount/);
    expect(lines).toHaveLength(11);
    expect(lines.find((line) => line.includes('EMP-001'))).toMatch(/,15000\.00,.*,COMPLETED,/);
    expect(lines.find((line) => line.includes('EMP-007'))).toMatch(/,FAILED,/);
    // Masked, never the full card number.
    expect(text).not.toContain('2200000000000004');

    const excel = await save('CSV for Excel (;)');
    expect(excel.name).toBe(`batch-${batchId}-results-excel.csv`);
    const excelText = excel.bytes.toString('utf8');
    expect(excelText.startsWith('\uFEFF')).toBe(true);
    expect(excelText.split(/\r?\n/).find((line) => line.includes('EMP-001'))).toMatch(/;15000,00;/);

    const xlsx = await save('XLSX');
    expect(xlsx.name).toBe(`batch-${batchId}-results.xlsx`);
    expect(xlsx.bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
  });

  it('finds a payment and shows its status history', async () => {
    const { page } = rig;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Find a payment' }).click();
    await page.getByRole('heading', { name: 'Find a payment', level: 1 }).waitFor();
    await page.getByLabel('Payment id or your reference').fill(`${batchId}-2`);
    await page.getByRole('button', { name: 'Find' }).click();
    const card = page.locator('article.payment');
    await card.getByRole('heading', { name: `${batchId}-2` }).waitFor();
    await card.getByRole('table').locator('tbody tr').first().waitFor();
    expect(await card.locator('.facts .badge').first().textContent()).toBe('Completed');
    expect(await card.locator('.money').first().textContent()).toMatch(/15,000\.00/);
    const history = await card.getByRole('table').locator('tbody tr td:nth-child(2)').allTextContents();
    expect(history.at(-1)).toBe('Completed');
    // The source is an enum (StatusSource: REQUEST, …), shown in words.
    expect((await card.getByRole('table').locator('tbody tr td:nth-child(3)').allTextContents())[0]).toBe('request sent');
    await step(rig, '08-find-payment');

    // The payer's own reference finds the same payment through the gateway's records.
    await page.getByLabel('Payment id or your reference').fill('EMP-001');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL(/#\/find\?q=EMP-001$/);
    await card.getByRole('heading', { name: `${batchId}-2` }).waitFor();
    expect(await card.count()).toBe(1);
    expect(await card.locator('dt', { hasText: 'Reference' }).locator('xpath=..').locator('dd').textContent()).toBe('EMP-001');
    await step(rig, '09-find-by-reference');

    await page.getByLabel('Payment id or your reference').fill('no-such-payment');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('No payment found for "no-such-payment".').waitFor();
  });

  it('switches to Russian, formats amounts for the locale and remembers the choice', async () => {
    const { page } = rig;
    await page.getByLabel('Payment id or your reference').fill(`${batchId}-2`);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.locator('article.payment').waitFor();
    await page.getByRole('button', { name: 'Русский' }).click();
    await page.getByRole('heading', { name: 'Поиск платежа', level: 1 }).waitFor();
    // Russian grouping (a no-break space), decimal comma and the rouble sign.
    expect(await page.locator('article.payment .money').first().textContent()).toMatch(/^15\s000,00\s₽$/);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ru');
    await step(rig, '10-find-payment-ru');

    await page.reload();
    await page.getByRole('navigation', { name: 'Разделы' }).getByRole('link', { name: 'Реестры' }).click();
    await page.getByRole('heading', { name: 'Реестры', level: 1 }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('table.batches tbody tr').length === 3);
    const names = await page.locator('table.batches tbody th a').allTextContents();
    // Newest first.
    expect(names).toEqual(['payroll-valid.csv', 'payroll-errors.xlsx', 'payroll-errors.csv']);
    await step(rig, '11-batches-ru');

    await page.getByLabel('Статус').selectOption('CANCELLED');
    await page.waitForFunction(() => document.querySelectorAll('table.batches tbody tr').length === 1);
    expect(await page.locator('table.batches tbody th a').allTextContents()).toEqual(['payroll-errors.csv']);
    await page.getByRole('button', { name: 'English' }).click();
  });

  it('pages through the rows of a batch', async () => {
    const { page } = rig;
    const rows = Array.from(
      { length: 30 },
      (_, i) => `PAGE-${String(i + 1).padStart(2, '0')},bank-card-token,${i + 10}.00,RUB,token_success`,
    );
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Upload a file' }).click();
    await page.getByLabel('Choose a file').setInputFiles({
      name: 'thirty-rows.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(['reference,provider,amount,currency,account', ...rows].join('\n')),
    });
    await page.locator('.upload-result h2 a', { hasText: 'thirty-rows.csv' }).click();
    await page.getByRole('heading', { name: 'Batch thirty-rows.csv', level: 1 }).waitFor();
    const lines = () => page.locator('table.items-table tbody tr td:first-child').allTextContents();
    await page.waitForFunction(() => document.querySelectorAll('table.items-table tbody tr').length === 25);
    expect((await lines()).slice(0, 2)).toEqual(['2', '3']);
    const pager = page.getByRole('navigation', { name: 'Rows' });
    await pager.getByRole('button', { name: 'Next page' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table.items-table tbody tr').length === 5);
    expect(await lines()).toEqual(['27', '28', '29', '30', '31']);
    await pager.getByText('Page 2').waitFor();
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table.items-table tbody tr').length === 25);
    await page.getByRole('button', { name: 'Discard' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Discard' }).click();
    await page.locator('.batch-head .badge', { hasText: 'Cancelled' }).waitFor();
  });

  it('raised no console error or Content-Security-Policy violation on the way', () => {
    expect(rig.problems).toEqual([]);
  });
});

const KEYS = { viewer: apiKey('web-viewer'), operator: apiKey('web-operator'), approver: apiKey('web-approver') };

suite('the web page with API keys: sign-in, and each role offered only what it may do', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let gateway: RunningGateway;
  let rig: Rig;

  beforeAll(async () => {
    started = await startPageRig('payout-web-keys-', {
      HOST: '127.0.0.1',
      GATEWAY_API_KEYS: `${KEYS.viewer}:viewer,${KEYS.operator}:operator,${KEYS.approver}:approver`,
    });
    ({ gateway, rig } = started);
  });

  afterAll(() => started?.close());

  const signIn = (key: string) => submitKey(rig.page, key);

  async function signOut() {
    await rig.page.getByRole('button', { name: 'Sign out' }).click();
  }

  it('asks for a key and refuses an unknown one', async () => {
    const { page } = rig;
    await page.goto('/');
    await signIn('not-a-key');
    await page.getByRole('alert').getByText('This key is not known to the gateway.').waitFor();
    await step(rig, '12-sign-in-refused');
  });

  it('offers a viewer no upload', async () => {
    const { page } = rig;
    await signIn(KEYS.viewer);
    await page
      .locator('.who-text')
      .filter({ hasText: /^Signed in as [0-9a-f]{12} viewer$/ })
      .waitFor();
    await page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Sections' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Batches', 'Find a payment', 'Reconciliation', 'GraphiQL']);
    expect(await page.getByRole('link', { name: 'Upload a file' }).count()).toBe(0);
    await signOut();
  });

  let batchId: string;

  it('lets an operator upload but not approve; an approver approves, shown who uploaded', async () => {
    const { page } = rig;
    await signIn(KEYS.operator);
    await page
      .locator('.who-text')
      .filter({ hasText: /^Signed in as [0-9a-f]{12} operator$/ })
      .waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Upload a file' }).click();
    await page.getByLabel('Choose a file').setInputFiles(join(repoRoot, 'samples/payroll-valid.csv'));
    await page.locator('.upload-result .badge', { hasText: 'Ready to approve' }).waitFor();
    // An operator may discard what it uploaded, never approve it.
    await page.getByRole('button', { name: 'Discard' }).waitFor();
    expect(await page.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await page.locator('.upload-result h2 a').click();
    await page.waitForURL(/#\/batches\/[A-Za-z0-9]+$/);
    batchId = /#\/batches\/([A-Za-z0-9]+)$/.exec(page.url())![1]!;
    const uploadedBy = page.locator('.facts dt', { hasText: 'Uploaded by' }).locator('xpath=..').locator('dd');
    // A key without a name is named by its fingerprint (the identity is key:<fingerprint>).
    await expect.poll(() => uploadedBy.textContent()).toMatch(/^[0-9a-f]{12} \(you\)$/);
    await page.getByText('an approver or admin other than you, since you uploaded it').waitFor();
    await signOut();

    await signIn(KEYS.approver);
    await page
      .locator('.who-text')
      .filter({ hasText: /^Signed in as [0-9a-f]{12} approver$/ })
      .waitFor();
    await page.getByRole('heading', { name: 'Batch payroll-valid.csv', level: 1 }).waitFor();
    await expect.poll(() => uploadedBy.textContent()).toMatch(/^[0-9a-f]{12}$/);
    await page.getByText('you, or any other approver or admin').waitFor();
    expect(await page.getByRole('link', { name: 'Upload a file' }).count()).toBe(0);
    await step(rig, '13-approver-sees-maker-checker');
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: 'Completed with failures' }).waitFor();
    await page.getByText('10 of 10 rows finished').waitFor();
    const approvedBy = page.locator('.facts dt', { hasText: 'Approved by' }).locator('xpath=..').locator('dd');
    await expect.poll(() => approvedBy.textContent()).toMatch(/^[0-9a-f]{12}$/);
    expect(await approvedBy.textContent()).not.toBe((await uploadedBy.textContent())?.replace(' (you)', ''));
    // Paying failed rows again is an operator's right, not an approver's.
    expect(await page.getByRole('button', { name: 'Pay failed rows again' }).count()).toBe(0);
    expect(batchId).toMatch(/^[A-Za-z0-9]+$/);
  });

  it('raised no console error other than the refused key on the way', () => {
    // The refused key is a 401 the browser itself logs as a failed resource load.
    expect(rig.problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});

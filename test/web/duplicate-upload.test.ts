import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app/start-gateway.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { createLogger } from '../../src/log/logger.ts';
import { buildWebPage, launch, openPage, repoRoot, step, suite, type Rig } from '../support/browser.ts';

/**
 * Issue 18 as a clerk would try it, in Chromium against a real gateway: pay the sample
 * payroll, upload it again re-sorted as a spreadsheet would save it: the page says which
 * rows were already paid and by which batch, the approval counts only the rest, and
 * approving pays none of the paid people again.
 */
suite('the web page: the same payroll uploaded again, re-sorted', () => {
  let dataDir: string;
  let gateway: RunningGateway;
  let browser: Browser;
  let rig: Rig;

  beforeAll(async () => {
    buildWebPage();
    dataDir = await mkdtemp(join(tmpdir(), 'payout-web-dup-'));
    gateway = await startGateway(loadGatewayConfig({ PORT: '0', DATA_DIR: dataDir }), createLogger({ level: 'silent' }));
    browser = await launch();
    rig = await openPage(browser, gateway.url);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  async function counts(batchId: string): Promise<Record<string, number>> {
    const response = await request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query($id: ID!) { batch(id: $id) { counts { status count } } }', variables: { id: batchId } }),
    });
    const body = (await response.body.json()) as { data: { batch: { counts: Array<{ status: string; count: number }> } } };
    return Object.fromEntries(body.data.batch.counts.map((c) => [c.status, c.count]));
  }

  async function uploadAndOpen(path: string): Promise<string> {
    const { page } = rig;
    await page.goto('/#/upload');
    await page.getByRole('heading', { name: 'Upload a payroll file', level: 1 }).waitFor();
    await page.getByLabel('Choose a file').setInputFiles(path);
    const link = page.locator('.upload-result h2 a');
    await link.waitFor();
    const href = (await link.getAttribute('href'))!;
    await page.goto(`/${href}`);
    await page.locator('.batch-head').waitFor();
    return href.split('/').pop()!;
  }

  async function approve(confirmText: RegExp): Promise<void> {
    const { page } = rig;
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByText(confirmText).waitFor();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Completed/ }).waitFor();
  }

  it('holds every row already paid, names the batch that paid it, and pays none of them again', async () => {
    const { page } = rig;
    const first = await uploadAndOpen(join(repoRoot, 'samples/payroll-valid.csv'));
    await approve(/Pay 10 rows/);
    const paid = (await counts(first)).COMPLETED ?? 0;
    expect(paid).toBeGreaterThan(0);

    // As a spreadsheet saves it after sorting: the same rows, last first.
    const [header, ...rows] = (await readFile(join(repoRoot, 'samples/payroll-valid.csv'), 'utf8')).trimEnd().split('\n');
    const resorted = join(dataDir, 'payroll-resorted.csv');
    await writeFile(resorted, `${[header, ...rows.reverse()].join('\r\n')}\r\n`);
    const again = await uploadAndOpen(resorted);

    const notice = page.locator('section.notice-warn');
    await notice.getByText(new RegExp(`^${paid} rows \\(.+\\) repeat a payment already made`)).waitFor();
    await notice.getByRole('link', { name: new RegExp(`Batch ${first}: ${paid} rows`) }).waitFor();
    await page.locator('section.problem-group', { has: page.locator('code', { hasText: /^row\.already-paid$/ }) }).waitFor();
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByText(new RegExp(`Pay ${10 - paid} rows`)).waitFor();
    await page.getByText(`Also pay the ${paid} rows flagged as already paid`).waitFor();
    await step(rig, '18-duplicate-rows-held');
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Completed/ }).waitFor();

    const after = await counts(again);
    expect(after.DUPLICATE).toBe(paid);
    expect(after.COMPLETED ?? 0).toBe(0);
    expect((await counts(first)).COMPLETED).toBe(paid);
    expect(rig.problems).toEqual([]);
  });
});

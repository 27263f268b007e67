import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/app/start-gateway.ts';
import { countsThroughGraphQL } from '../support/batch-graphql.ts';
import { repoRoot, startPageRig, step, suite, uploadAndOpen, type Rig } from '../support/browser.ts';

/**
 * Issue 18 as a clerk would try it, in Chromium against a real gateway: pay the sample
 * payroll, upload it again re-sorted as a spreadsheet would save it: the page says which
 * rows were already paid and by which batch, the approval counts only the rest, and
 * approving pays none of the paid people again.
 */
suite('the web page: the same payroll uploaded again, re-sorted', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let gateway: RunningGateway;
  let rig: Rig;
  let dataDir: string;

  beforeAll(async () => {
    started = await startPageRig('payout-web-dup-');
    ({ gateway, rig, dataDir } = started);
  });

  afterAll(() => started?.close());

  const counts = (batchId: string) => countsThroughGraphQL(gateway.url, batchId);

  async function approve(confirmText: RegExp): Promise<void> {
    const { page } = rig;
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByText(confirmText).waitFor();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Completed/ }).waitFor();
  }

  it('holds every row already paid, names the batch that paid it, and pays none of them again', async () => {
    const { page } = rig;
    const first = await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-valid.csv'));
    await approve(/Pay 10 rows/);
    const paid = (await counts(first)).COMPLETED ?? 0;
    expect(paid).toBeGreaterThan(0);

    // As a spreadsheet saves it after sorting: the same rows, last first.
    const [header, ...rows] = (await readFile(join(repoRoot, 'samples/payroll-valid.csv'), 'utf8')).trimEnd().split('\n');
    const resorted = join(dataDir, 'payroll-resorted.csv');
    await writeFile(resorted, `${[header, ...rows.reverse()].join('\r\n')}\r\n`);
    const again = await uploadAndOpen(rig, resorted);

    const notice = page.locator('section.notice-warn');
    await notice.getByText(new RegExp(`^${paid} rows \\(.+\\) repeat a payment already made`)).waitFor();
    await notice.getByRole('link', { name: new RegExp(`Batch ${first}: ${paid} rows`) }).waitFor();
    await page.locator('section.problem-group[data-code="row.already-paid"]').waitFor();
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByText(new RegExp(`Pay ${10 - paid} rows`)).waitFor();
    await page.getByText(`Also pay the ${paid} held rows`).waitFor();
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

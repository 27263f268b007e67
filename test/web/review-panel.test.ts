import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/app/start-gateway.ts';
import { readControlFile } from '../../src/sandbox/control-file.ts';
import {
  buildWebPage,
  launch,
  openPage,
  repoRoot,
  signInAfresh,
  startPageRig,
  step,
  suite,
  uploadAndOpen,
  type Rig,
} from '../support/browser.ts';
import { textSource } from '../support/batch.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * Issue 19, item 5 on the page, in Chromium against a real gateway (embedded sandbox and
 * database, local mode): a batch with rows left NEEDS_REVIEW shows them, "Check again with
 * the partner" settles what the partner proves, and a row that stays unknown is marked
 * with a reason. With REVIEW_SCREENSHOT=path the panel is also saved there as a PNG.
 */
suite('the web page: rows under review', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let gateway: RunningGateway;
  let rig: Rig;
  let dataDir: string;

  beforeAll(async () => {
    started = await startPageRig('payout-web-review-');
    ({ gateway, rig, dataDir } = started);
  });

  afterAll(() => started?.close());

  /** What the embedded sandbox holds for a payment, changed through its test route (as `payout sandbox alter`). */
  async function alter(paymentId: string, status: string): Promise<void> {
    const control = readControlFile(join(dataDir, 'sandbox'));
    expect(control).toBeDefined();
    const response = await request(`${control!.url}/_sandbox/payments/${paymentId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${control!.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status }),
    });
    await response.body.text();
    expect(response.statusCode).toBe(200);
  }

  it('checks again with the partner, then a person marks what stays unknown', async () => {
    const { page } = rig;
    const batchId = await uploadAndOpen(rig, join(repoRoot, 'samples/payroll-valid.csv'));
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Completed/ }).waitFor();
    // Nothing to review on a batch with no NEEDS_REVIEW row.
    expect(await page.getByRole('button', { name: 'Check again with the partner' }).count()).toBe(0);

    // As the worker leaves rows it could not settle: two paid rows whose answers were lost.
    const prisma = gateway.services.prisma;
    const [paid, unknown] = await prisma.batchItem.findMany({ where: { batchId, status: 'COMPLETED' }, orderBy: { line: 'asc' }, take: 2 });
    await prisma.batchItem.updateMany({
      where: { id: { in: [paid!.id, unknown!.id] } },
      data: {
        status: 'NEEDS_REVIEW',
        errorCode: 'payout.payment.not-found',
        errorMessage: 'the partner could not find the payment after execute',
      },
    });
    await prisma.batch.update({ where: { id: batchId }, data: { status: 'COMPLETED_WITH_FAILURES' } });
    // The partner holds the second one CREATED: nothing a read settles.
    await alter(unknown!.paymentId, 'CREATED');

    await page.reload();
    const panel = page.getByRole('region', { name: 'Rows to check: 2' });
    await panel.waitFor();
    await panel.getByText(`Line ${paid!.line}`, { exact: true }).waitFor();
    await step(rig, 'review-1-rows-to-check');

    await panel.getByRole('button', { name: 'Check again with the partner' }).click();
    await page.getByText('Checked: 1 settled, 1 still unknown.', { exact: false }).waitFor();
    await page.getByRole('region', { name: 'Rows to check: 1' }).waitFor();
    const row = page.getByRole('form', { name: `What became of line ${unknown!.line}?` });
    await row.waitFor();
    // A mark needs a reason.
    await row.getByRole('radio', { name: 'Do not pay' }).check();
    expect(await row.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await row.getByLabel('Reason (required, kept in the audit trail)').fill('paid by hand at the bank');
    await step(rig, 'review-2-mark');
    const shot = process.env.REVIEW_SCREENSHOT;
    if (shot !== undefined && shot !== '') await page.screenshot({ path: shot, fullPage: true });
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('region', { name: 'Rows to check: 1' }).waitFor({ state: 'detached' });

    expect((await prisma.batchItem.findUniqueOrThrow({ where: { id: paid!.id } })).status).toBe('COMPLETED');
    expect(await prisma.batchItem.findUniqueOrThrow({ where: { id: unknown!.id } })).toMatchObject({
      status: 'CANCELLED',
      errorCode: 'review.marked-do-not-pay',
    });
    const trail = await prisma.auditEvent.findMany({
      where: { batchId, action: { in: ['batch.review', 'batch.item.mark'] } },
      orderBy: { id: 'asc' },
    });
    expect(trail.map((event) => [event.action, (event.detail as Record<string, unknown>).line])).toEqual([
      ['batch.review', paid!.line],
      ['batch.item.mark', unknown!.line],
    ]);
    expect(rig.problems).toEqual([]);
  });
});

suite('the web page: rows under review, as each role sees them', () => {
  let gw: TestGateway;
  let browser: Browser;
  let rig: Rig;
  let batchId: string;

  beforeAll(async () => {
    buildWebPage();
    gw = await startTestGateway({
      env: {
        WORKER_IN_PROCESS: 'false',
        GATEWAY_API_KEYS: namedApiKeysEnv({ olga: 'operator', april: 'approver', amir: 'approver', vera: 'viewer' }),
      },
    });
    const { importer, batches } = gw.services();
    const batch = await importer.import({
      source: textSource('provider,amount,account\nbank-card-token,640.00,token_success\n'),
      uploadedBy: 'key:olga',
    });
    await batches.approve(batch.id, { approver: 'key:april' });
    batchId = batch.id;
    // Left as the worker leaves a row it could not settle.
    await gw.db.prisma.batchItem.updateMany({
      where: { batchId },
      data: { status: 'NEEDS_REVIEW', errorCode: 'payout.outcome.unknown', errorMessage: 'the answer was lost', finishedAt: new Date() },
    });
    await gw.db.prisma.batch.update({ where: { id: batchId }, data: { status: 'COMPLETED_WITH_FAILURES', finishedAt: new Date() } });
    browser = await launch();
    rig = await openPage(browser, gw.gateway.url);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  async function openAs(name: string) {
    const { page } = rig;
    await signInAfresh(page, apiKey(name));
    await page.goto(`/#/batches/${batchId}`);
    return page.getByRole('region', { name: 'Rows to check: 1' });
  }

  it('a viewer sees the rows only; the batch’s approver may check again but not mark; another approver marks', async () => {
    const viewer = await openAs('vera');
    await viewer.getByText('the answer was lost').waitFor();
    expect(await viewer.getByRole('button').count()).toBe(0);
    expect(await viewer.getByRole('radio').count()).toBe(0);

    const own = await openAs('april');
    await own.getByText('You approved this batch: another approver or admin marks its rows.').waitFor();
    expect(await own.getByRole('button', { name: 'Check again with the partner' }).count()).toBe(1);
    expect(await own.getByRole('radio').count()).toBe(0);

    const other = await openAs('amir');
    await other.getByRole('form', { name: 'What became of line 2?' }).waitFor();
    expect(await other.getByRole('radio').count()).toBe(3);
    await step(rig, 'review-3-second-approver');
    // The page's first request, before a key is given, is refused (401): that is the sign-in working.
    expect(rig.problems.filter((problem) => !problem.includes('401'))).toEqual([]);
  });
});

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildWebPage, launch, openPage, signIn as signInAs, step, suite, type Rig } from '../support/browser.ts';
import { textSource } from '../support/batch.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';
import { policyFile } from '../support/approval-policy.ts';

/**
 * Issue 38, section 1, in Chromium: under a two-approver policy April approves on the page to
 * pay on a date and time; Boris, signing in next, is shown her choice ("april approved
 * paying 2 rows, …, on …; your approval completes it") and agrees to it: the batch waits for
 * her time. On another batch Boris chooses otherwise: the page says April will have to approve
 * again, and his choice is the one that stands. No worker runs, so only the clicks move a batch.
 */
suite('the web page: a second approver sees and keeps the first one’s choice', () => {
  let gw: TestGateway;
  let browser: Browser;
  let rig: Rig;

  beforeAll(async () => {
    buildWebPage();
    gw = await startTestGateway({
      env: {
        WORKER_IN_PROCESS: 'false',
        GATEWAY_API_KEYS: namedApiKeysEnv({ olga: 'operator', april: 'approver', boris: 'approver' }),
        APPROVAL_POLICY_FILE: policyFile('{ "batch": { "approvers": 2 }, "payment": { "approvers": 0 } }'),
      },
    });
    browser = await launch();
    rig = await openPage(browser, gw.gateway.url);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  let serial = 0;
  async function importedByOlga(): Promise<string> {
    serial++;
    const text = `provider,amount,account,reference\nbank-card-token,1000.00,token_success,choice-${serial}-1\nbank-card-token,250.50,token_success,choice-${serial}-2\n`;
    return (await gw.services().importer.import({ source: textSource(text), uploadedBy: 'key:olga' })).id;
  }
  async function as(name: string, batchId: string) {
    const { page } = rig;
    await page.goto('/');
    const signOut = page.getByRole('button', { name: 'Sign out' });
    await signOut.or(page.getByRole('heading', { name: 'Sign in', level: 1 })).waitFor();
    if (await signOut.isVisible()) await signOut.click();
    await signInAs(page, apiKey(name));
    await page.goto(`/#/batches/${batchId}`);
    await page.getByRole('heading', { name: /^Batch /, level: 1 }).waitFor();
  }
  /** A datetime-local value in the browser's zone, tomorrow at 09:30. */
  const tomorrow = () => {
    const at = new Date(Date.now() + 86_400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T09:30`;
  };

  async function aprilSchedules(batchId: string) {
    const { page } = rig;
    await as('april', batchId);
    await page.getByRole('button', { name: 'Add my approval' }).click();
    const confirm = page.getByRole('group', { name: /^Approve paying 2 rows/ });
    await confirm.getByRole('radio', { name: 'Pay on a date and time' }).check();
    await confirm.getByLabel(/^Date and time/).fill(tomorrow());
    await confirm.getByRole('button', { name: 'Add my approval' }).click();
    await page
      .getByTestId('pending-approval')
      .getByText(/^april approved paying 2 rows, .*1,250\.50, on .*09:30(:00)?; the approval policy needs more approvers$/)
      .waitFor();
  }

  it('Boris is shown April’s time and agrees to it: the batch waits for her time', async () => {
    const { page } = rig;
    const batchId = await importedByOlga();
    await aprilSchedules(batchId);
    await as('boris', batchId);
    const pending = page.getByTestId('pending-approval');
    await pending.getByText(/^april approved paying 2 rows, .*1,250\.50, on .*09:30(:00)?; your approval completes it$/).waitFor();
    await step(rig, '38-pending-choice');
    await page.getByRole('button', { name: 'Approve this choice' }).click();
    const confirm = page.getByRole('group', { name: /^april approved paying 2 rows/ });
    // Agreeing offers no choices of its own: April's rows and time are what is approved.
    expect(await confirm.getByRole('radio').count()).toBe(0);
    await step(rig, '38-agree-question');
    await confirm.getByRole('button', { name: 'Approve this choice' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Scheduled/ }).waitFor();
    expect(await page.locator('.notice.scheduled').innerText()).toMatch(/09:30/);
    const batch = await gw.db.prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect(batch.status).toBe('SCHEDULED');
    const approvals = await gw.db.prisma.approval.findMany({ where: { batchId }, orderBy: { id: 'asc' } });
    expect(approvals.map((a) => [a.actor, a.payAt?.toISOString()])).toEqual([
      ['key:april', batch.payAt!.toISOString()],
      ['key:boris', batch.payAt!.toISOString()],
    ]);
    expect(rig.problems).toEqual([]);
  });

  it('Boris chooses otherwise: told April must approve again, and his choice is the one that stands', async () => {
    const { page } = rig;
    const batchId = await importedByOlga();
    await aprilSchedules(batchId);
    await as('boris', batchId);
    await page.getByRole('button', { name: 'Approve this choice' }).click();
    const confirm = page.getByRole('group', { name: /^april approved paying 2 rows/ });
    await confirm.getByRole('button', { name: 'Choose otherwise' }).click();
    await page.getByText('Your choice starts a new round: april will have to approve again.').waitFor();
    await page.getByRole('radio', { name: 'Pay now' }).check();
    await step(rig, '38-new-round');
    await page
      .getByRole('group', { name: /^Approve paying 2 rows/ })
      .getByRole('button', { name: 'Add my approval' })
      .click();
    await page
      .getByTestId('pending-approval')
      .getByText(
        /^boris approved paying 2 rows, .*1,250\.50, as soon as the approvals are complete; the approval policy needs more approvers$/,
      )
      .waitFor();
    expect((await gw.db.prisma.batch.findUniqueOrThrow({ where: { id: batchId } })).status).toBe('VALIDATED');
    const trail = await gw.db.prisma.auditEvent.findMany({ where: { batchId, action: 'batch.approve' }, orderBy: { id: 'asc' } });
    expect(trail.map((e) => (e.detail as Record<string, unknown>).replaces ?? null)).toEqual([null, ['key:april']]);
    expect(rig.problems).toEqual([]);
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/app/start-gateway.ts';
import { repoRoot, startPageRig, step, suite, uploadAndOpen, type Rig } from '../support/browser.ts';

/**
 * A clerk's way past an approval refused for money, and a waiting batch's sign in the list.
 * The embedded sandbox's balance is set below the batch's total once it is uploaded, so
 * Approve is refused with the shortfall; "Start anyway" sends the same approval with
 * ignoreBalance. The gateway runs without its worker, so the batch stays RUNNING, then
 * PAUSED where the clicks put it.
 */
suite('the web page: start a batch the balance does not cover, and waiting batches in the list', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let gateway: RunningGateway;
  let rig: Rig;
  let dataDir: string;
  const setBalance = (value: string) => gateway.upstream.sandbox!.testFeatures.changeBalance({ set: value });

  let uploads = 0;
  /**
   * Uploads the sample payroll (its valid rows total 50,950.60 RUB) and opens its page; its id.
   * Each upload's references are its own, so it is neither the same file nor rows already paid.
   */
  async function uploadSample(edit: (csv: string) => string = (csv) => csv): Promise<string> {
    const file = join(dataDir, `payroll-${++uploads}.csv`);
    await writeFile(
      file,
      edit((await readFile(join(repoRoot, 'samples/payroll-valid.csv'), 'utf8')).replaceAll(/^EMP-(\d+)/gm, `EMP-$1-${uploads}`)),
    );
    return uploadAndOpen(rig, file);
  }
  const stored = (id: string) => gateway.services.prisma.batch.findUniqueOrThrow({ where: { id } });

  beforeAll(async () => {
    started = await startPageRig('payout-web-funds-', { WORKER_IN_PROCESS: 'false' });
    ({ gateway, rig, dataDir } = started);
  });

  afterAll(() => started?.close());

  it('shows the refusal with the shortfall, offers "Start anyway", and starts the batch once confirmed', async () => {
    const { page } = rig;
    setBalance('10000000.00');
    const batchId = await uploadSample();
    // Money spent elsewhere between upload (which checks the balance too) and approval: the
    // docs/sandbox.md's `payout sandbox balance --set 100.00`, on the embedded sandbox itself.
    setBalance('100.00');
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();

    // The refusal in words, naming the page's own button; its code only for tools (data-code).
    const refusal = page.locator('[role="alert"][data-code="BATCH_INSUFFICIENT_FUNDS"]');
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(
      /^The gateway refused: ₽[\d,]+\.\d{2} short: .* Top up, or use “Start anyway” \(it pauses when the money runs out\)$/,
    );
    await page.getByText('Start anyway: the batch pays what the balance covers, then pauses until the balance is topped up.').waitFor();
    await step(rig, '23-approval-refused-for-money');
    await page.getByRole('button', { name: 'Русский' }).click();
    await refusal.getByText(/^Шлюз отказал: .* use “Всё равно начать”/).waitFor();
    await step(rig, '23-approval-refused-for-money-ru');
    await page.getByRole('button', { name: 'English' }).click();

    await page.getByRole('button', { name: 'Start anyway' }).click();
    const confirm = page.locator('.confirm');
    await confirm
      .getByText(/although the balance may not cover them\? The batch pays what the balance covers, then pauses until a top-up\.$/)
      .waitFor();
    // The question counts what the refused approval would have paid.
    expect(await confirm.innerText()).toMatch(/^Start paying 10 rows, /);
    await step(rig, '24-start-anyway-confirm');
    await confirm.getByRole('button', { name: 'Start anyway' }).click();

    await page.locator('.batch-head .badge', { hasText: /^Paying/ }).waitFor();
    await page.getByText('Approved: paying now.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Start anyway' }).count()).toBe(0);
    expect(await stored(batchId)).toMatchObject({ status: 'RUNNING', validRowsOnly: false });
    expect(rig.problems).toEqual([]);
  });

  it("starts anyway with the refused approval's own choice: the valid rows only", async () => {
    const { page } = rig;
    // A row with an error: the batch is rejected, its 9 valid rows may be approved alone.
    setBalance('10000000.00');
    const batchId = await uploadSample((csv) => csv.replace(',4200.10,', ',not-an-amount,'));
    await page.locator('.batch-head .badge', { hasText: /^Has row errors$/ }).waitFor();
    setBalance('100.00');
    await page.getByRole('button', { name: 'Approve valid rows only' }).click();
    await page.locator('.confirm').getByRole('button', { name: 'Approve valid rows only' }).click();
    await page.locator('[role="alert"][data-code="BATCH_INSUFFICIENT_FUNDS"]').waitFor();
    await page.getByRole('button', { name: 'Start anyway' }).click();
    expect(await page.locator('.confirm').innerText()).toMatch(/^Start paying 9 rows, /);
    await page.locator('.confirm').getByRole('button', { name: 'Start anyway' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paying/ }).waitFor();
    expect(await stored(batchId)).toMatchObject({ status: 'RUNNING', validRowsOnly: true });
    expect(rig.problems).toEqual([]);
  });

  it('says in the batch list why a batch waits, in English and Russian', async () => {
    const { page } = rig;
    setBalance('10000000.00');
    const batchId = await uploadSample();
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.confirm').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paying/ }).waitFor();
    const row = page.locator('table.batches tbody tr', { has: page.getByText(batchId, { exact: true }) });
    await page.goto('/#/');
    await row.locator('.badge', { hasText: /^Paying$/ }).waitFor();
    expect(await row.locator('.wait-sign').count()).toBe(0);

    await page.goto(`/#/batches/${batchId}`);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Pause' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paused/ }).waitFor();

    await page.goto('/#/');
    await row.locator('.wait-sign', { hasText: /^Paused by you \(local single-user mode\)$/ }).waitFor();
    await step(rig, '25-batches-waiting-sign');
    await page.getByRole('button', { name: 'Русский' }).click();
    await row.locator('.wait-sign', { hasText: /^Приостановлен вами \(локальный однопользовательский режим\)$/ }).waitFor();
    await page.getByRole('button', { name: 'English' }).click();
    expect(rig.problems).toEqual([]);
  });
});

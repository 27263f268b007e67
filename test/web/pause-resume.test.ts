import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app/start-gateway.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { createLogger } from '../../src/log/logger.ts';
import { buildWebPage, launch, openPage, repoRoot, step, suite, type Rig } from '../support/browser.ts';

/**
 * Issue 19, items 4 and 6 as a clerk would try them in Chromium: a running batch is paused
 * from its page, which then says who paused it, since when and what it waits for, with
 * "waiting" instead of a time left; Resume sets it paying again. The gateway runs without
 * its worker, so the batch stays where the clicks put it.
 */
suite('the web page: pause and resume a batch', () => {
  let dataDir: string;
  let gateway: RunningGateway;
  let browser: Browser;
  let rig: Rig;

  beforeAll(async () => {
    buildWebPage();
    dataDir = await mkdtemp(join(tmpdir(), 'payout-web-pause-'));
    gateway = await startGateway(loadGatewayConfig({ PORT: '0', DATA_DIR: dataDir, WORKER_IN_PROCESS: 'false' }), createLogger({ level: 'silent' }));
    browser = await launch();
    rig = await openPage(browser, gateway.url);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('pauses from the page, says why and since when, and resumes', async () => {
    const { page } = rig;
    await page.goto('/#/upload');
    await page.getByRole('heading', { name: 'Upload a payroll file', level: 1 }).waitFor();
    await page.getByLabel('Choose a file').setInputFiles(join(repoRoot, 'samples/payroll-valid.csv'));
    const link = page.locator('.upload-result h2 a');
    await link.waitFor();
    await page.goto(`/${(await link.getAttribute('href'))!}`);
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paying/ }).waitFor();

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText(/^Pause this batch\?/).waitFor();
    await page.getByRole('group').getByRole('button', { name: 'Pause' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paused/ }).waitFor();
    const notice = page.locator('.progress-panel .notice-warn');
    await notice.getByText(/^Paused by local/).waitFor();
    await notice.getByText('Waiting for: a person to resume it').waitFor();
    expect(await notice.innerText()).toMatch(/since /);
    await page.getByText('waiting', { exact: true }).waitFor();
    await step(rig, '19-batch-paused');

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Resume' }).click();
    await page.locator('.batch-head .badge', { hasText: /^Paying/ }).waitFor();
    expect(await page.locator('.progress-panel .notice-warn').count()).toBe(0);
    expect(rig.problems).toEqual([]);
  });
});

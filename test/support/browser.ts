import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, isInterfaceType, isObjectType, type GraphQLEnumType, type GraphQLObjectType } from 'graphql';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { seedDataDir } from './database-template.ts';
import { startGateway, type RunningGateway } from '../../src/app/start-gateway.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { createLogger } from '../../src/log/logger.ts';
import * as enums from '../../src/db/generated/enums.ts';

/**
 * A real browser for the page's tests: Debian's Chromium driven by playwright-core, each
 * page state checked with axe-core, and with UPDATE_SCREENSHOTS=1 saved to docs/screenshots/.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
export const inCi = (process.env.CI ?? '') !== '' && process.env.CI !== 'false' && process.env.CI !== '0';
export const screenshots = process.env.UPDATE_SCREENSHOTS === '1';
export const WAIT_MS = 90_000;

// Without Chromium the suites show as skipped with the reason; in CI they run (and fail without it).
const missing = !existsSync(CHROMIUM) && !inCi;
export const suite = (name: string, body: () => void) =>
  missing
    ? describe.skip(`${name} (skipped: ${CHROMIUM} is missing; apt-get install -y chromium)`, body)
    : // A browser, a gateway and its worker on a loaded 2-core machine: bounds for a hang only.
      describe(name, { timeout: 300_000 }, body);
if (missing) console.warn(`test/web: skipped, ${CHROMIUM} is missing (apt-get install -y chromium); in CI it runs and fails without it`);

/** Builds web/ as `npm run build` does, so the page under test is the one in the working tree. */
export function buildWebPage(): void {
  // Once per test run: page test files run in parallel workers, and a vite build empties
  // dist/web while it works, so a page another file is loading meanwhile would find no script.
  const marker = join(repoRoot, 'dist/web', `.built-by-${process.env.PAYOUT_TEST_RUN ?? process.pid}`);
  if (existsSync(marker)) return;
  const lock = join(repoRoot, 'dist/.web-build-lock');
  while (!tryLock(lock)) {
    // Another worker builds; it writes the marker when done (a build lock, not a test's timing).
    if (existsSync(marker)) return;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  try {
    if (existsSync(marker)) return;
    // vitest sets NODE_ENV=test, which would make vite ship Preact's development build (a third
    // larger): the page under test must be the production one `npm run build` makes.
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts'], {
      cwd: repoRoot,
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    writeFileSync(marker, '');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function tryLock(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--headless'],
  });
}

export interface Rig {
  page: Page;
  context: BrowserContext;
  /** Console errors and CSP violations seen so far. */
  problems: string[];
}

export async function openPage(browser: Browser, baseURL: string): Promise<Rig> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 860 }, locale: 'en-GB', acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { page, context, problems };
}

const axeSource = readFile(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core run inside the page. It is evaluated through the DevTools protocol, which the
 * page's Content-Security-Policy does not govern, so the policy stays as strict as served.
 */
export async function accessibilityViolations(page: Page, state: string): Promise<string[]> {
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => JSON.stringify(n.target)).slice(0, 5),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${state}: ${v.id} (${v.impact}) ${v.help} at ${v.targets.join(' ')}`);
}

const schema = buildSchema(readFileSync(join(repoRoot, 'schema.graphql'), 'utf8'));

/**
 * Every value of the database's enums (BatchStatus, BatchItemStatus, …) and the API's error
 * codes (BATCH_INSUFFICIENT_FUNDS, …): names a person should never read on the page.
 */
const ENUM_WORDS = [
  ...new Set([
    ...Object.values(enums).flatMap((values) => Object.values(values as Record<string, string>)),
    ...(schema.getType('ErrorCode') as GraphQLEnumType).getValues().map((value) => value.name),
  ]),
].sort((a, b) => b.length - a.length);

/**
 * The API's arguments named as code (ignoreBalance, validRowsOnly, includeHeld, …): the page
 * names its own controls instead. Plain words (id, reason) are words, and left alone.
 */
const ARGUMENT_WORDS = [
  ...new Set(
    Object.values(schema.getTypeMap())
      .filter((type) => !type.name.startsWith('__') && (isObjectType(type) || isInterfaceType(type)))
      .flatMap((type) => Object.values((type as GraphQLObjectType).getFields()).flatMap((field) => field.args.map((arg) => arg.name)))
      .filter((name) => /[A-Z]/.test(name)),
  ),
];

/**
 * Machine text a person should never read (issue 29): an ISO 8601 time or bare ISO date, an
 * enum name, an amount as the API or a server message writes it ("46950.60 RUB", "46,950.60 RUB")
 * where the page formats money for its language. A bare number such as "1500.00" may stay: the
 * messages about a file quote its cells and say what to write in it.
 */
const MACHINE_TEXT: readonly RegExp[] = [
  /(?<![\w.-])\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\d)/g,
  new RegExp(`\\b(?:${ENUM_WORDS.join('|')})\\b`, 'g'),
  /(?<![\d,.])(?:\d{1,3}(?:,\d{3})+|\d+)\.\d{2} [A-Z]{3}\b/g,
  // The first end of a range whose second end was formatted ("10.00–₽1,000,000.00").
  /(?<![\d,.₽])\d[\d,]*\.\d{2}–/g,
  new RegExp(`\\b(?:${ARGUMENT_WORDS.join('|')})\\b`, 'g'),
];

/** The machine text in `text` (a page's `document.body.innerText`), each with a few words around it. */
export function machineText(text: string): string[] {
  return MACHINE_TEXT.flatMap((pattern) =>
    [...text.matchAll(pattern)].map(
      (m) => `${m[0]} in "${text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 40).replace(/\s+/g, ' ')}"`,
    ),
  );
}

/**
 * `document.body.innerText` as written, not as styled: a label the style sheet upper-cases
 * ("Failed" shown as FAILED) is no enum name. Codes set apart in <code> beside the words that
 * name them ("row.already-paid", "STATUS_DIFFERS", what the downloads carry) are left out; not
 * in an alert, where a refusal's code beside its words names nothing a clerk can look up
 * (issue 29). Read in one synchronous task, so nothing is painted in between.
 */
export function visibleText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const changed: Array<[HTMLElement, string, string]> = [];
    for (const element of document.body.querySelectorAll<HTMLElement>('*')) {
      if (element.tagName === 'CODE' && element.closest('[role="alert"]') === null) changed.push([element, 'display', 'none']);
      else if (getComputedStyle(element).textTransform !== 'none') changed.push([element, 'text-transform', 'none']);
    }
    const before = changed.map(([element, property, value]) => {
      const was = element.style.getPropertyValue(property);
      element.style.setProperty(property, value);
      return was;
    });
    try {
      return document.body.innerText;
    } finally {
      changed.forEach(([element, property], index) =>
        before[index] === '' ? element.style.removeProperty(property) : element.style.setProperty(property, before[index]!),
      );
    }
  });
}

export async function step(rig: Rig, name: string): Promise<void> {
  expect(await accessibilityViolations(rig.page, name)).toEqual([]);
  // Soft: a screenshot is still taken, and every step of the journey is checked in one run.
  expect.soft(machineText(await visibleText(rig.page)), `${name}: machine text on the page`).toEqual([]);
  if (screenshots) {
    await mkdir(join(repoRoot, 'docs/screenshots'), { recursive: true });
    await rig.page.screenshot({ path: join(repoRoot, 'docs/screenshots', `${name}.png`), fullPage: true });
  }
}

/**
 * What a page test starts from: the web page built, a gateway on port 0 with a DATA_DIR of
 * its own (embedded database and sandbox), Chromium, and a page on the gateway. `env` is
 * the gateway's settings beside those two. For a gateway the test starts itself (keys on
 * PostgreSQL, a remote sandbox), `buildWebPage`, `launch` and `openPage` are the parts.
 */
export async function startPageRig(
  dataDirPrefix: string,
  env: Record<string, string> = {},
): Promise<{ gateway: RunningGateway; rig: Rig; dataDir: string; close(): Promise<void> }> {
  buildWebPage();
  const dataDir = await mkdtemp(join(tmpdir(), dataDirPrefix));
  await seedDataDir(dataDir);
  const gateway = await startGateway(loadGatewayConfig({ PORT: '0', DATA_DIR: dataDir, ...env }), createLogger({ level: 'silent' })).catch(
    async (error: unknown) => {
      await rm(dataDir, { recursive: true, force: true });
      throw error;
    },
  );
  let browser: Browser | undefined;
  let rig: Rig;
  try {
    browser = await launch();
    rig = await openPage(browser, gateway.url);
  } catch (error) {
    // Nothing left running by a start that failed half-way.
    await browser?.close();
    await gateway.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    gateway,
    rig,
    dataDir,
    async close() {
      await browser!.close();
      await gateway.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

type PageRig = Awaited<ReturnType<typeof startPageRig>>;

/**
 * One page rig for a file's tests whose gateway runs no worker, so that only the partner
 * breaker and the page change (the waits' tests); the sandbox's outage is cleared at the end.
 */
export function pageRigWithoutWorker(dataDirPrefix: string): () => PageRig {
  let started: PageRig | undefined;
  beforeAll(async () => {
    started = await startPageRig(dataDirPrefix, { WORKER_IN_PROCESS: 'false', PAYOUT_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    await started?.gateway.upstream.sandbox?.outage.clear();
    await started?.close();
  });
  return () => started!;
}

/** The sample payroll uploaded, approved on the page and shown paying. */
export async function approveSamplePayroll({ rig, dataDir }: Pick<PageRig, 'rig' | 'dataDir'>): Promise<void> {
  const { page } = rig;
  const file = join(dataDir, 'payroll.csv');
  await writeFile(file, await readFile(join(repoRoot, 'samples/payroll-valid.csv'), 'utf8'));
  await uploadAndOpen(rig, file);
  await page.getByRole('button', { name: 'Approve and pay' }).click();
  await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();
  await page.getByText('Paying', { exact: true }).first().waitFor();
}

/** Uploads `file` on the upload page and opens the batch's page; the batch's id. */
export async function uploadAndOpen(rig: Rig, file: string): Promise<string> {
  const { page } = rig;
  await page.goto('/#/upload');
  await page.getByRole('heading', { name: 'Upload a payroll file', level: 1 }).waitFor();
  await page.getByLabel('Choose a file').setInputFiles(file);
  const link = page.locator('.upload-result h2 a');
  await link.waitFor();
  const href = (await link.getAttribute('href'))!;
  await page.goto(`/${href}`);
  await page.getByRole('heading', { name: /^Batch /, level: 1 }).waitFor();
  return href.split('/').pop()!;
}

/** Pastes `key` into the page's sign-in form and sends it, as a person does; waits for no answer (a key may be refused). */
export async function submitKey(page: Page, key: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in on the page's sign-in form with `key`, as a person pastes theirs, and waits until signed in. */
export async function signIn(page: Page, key: string): Promise<void> {
  await submitKey(page, key);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * Opens the page and signs in with `key`, signing out first whoever the tab is signed in as
 * (the page keeps a key for the tab and probes it before it shows anything: this waits until
 * it shows the form or the sign-out button, never deciding on a page still starting); waits
 * for the batches list.
 */
export async function signInAfresh(page: Page, key: string): Promise<void> {
  await page.goto('/');
  const form = page.getByRole('heading', { name: 'Sign in', level: 1 });
  const signOut = page.getByRole('button', { name: 'Sign out' });
  await form.or(signOut).first().waitFor();
  if (await signOut.isVisible()) await signOut.click();
  await submitKey(page, key);
  await page.getByRole('heading', { name: 'Batches', level: 1 }).waitFor();
}

import { afterAll, beforeAll, expect, it } from 'vitest';
import { approveSamplePayroll, signInAfresh, startPageRig, step, suite, type Rig } from '../support/browser.ts';
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

const WAIT = 90_000;
const KEYS = { admin: apiKey('events-admin'), approver: apiKey('events-approver') };

/**
 * Issue 31's Events page as an admin would use it, in Chromium against a real gateway
 * (its worker delivers) and a real receiver that verifies every delivery with the
 * standardwebhooks package: subscribe on the page and copy the secret into the receiver,
 * pay the sample payroll and see its deliveries in the log, see the notice while the
 * receiver refuses, resend one event and replay since a time. An approver sees no Events.
 */
suite('the web page: outbound events in Chromium', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  let rig: Rig;
  let receiver: EventReceiver;

  beforeAll(async () => {
    receiver = await startEventReceiver();
    started = await startPageRig('payout-web-events-', {
      GATEWAY_API_KEYS: namedApiKeysEnv({ 'events-admin': 'admin', 'events-approver': 'approver' }),
      // One admin uploads and approves the sample payroll.
      GATEWAY_SINGLE_USER: 'true',
      EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true',
      // Short backoff, so the retries after the receiver answers again come soon (nothing waits for them by time).
      EVENT_RETRY_BASE_MS: '200',
      EVENT_RETRY_MAX_MS: '1000',
      EVENT_POLL_MS: '200',
    });
    ({ rig } = started);
    await rig.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: started.gateway.url });
  });

  afterAll(async () => {
    await started?.close();
    await receiver?.close();
  });

  const signIn = (key: string) => signInAfresh(rig.page, key);

  /** The page as it stands, in Russian once `heading` shows, then in English again. */
  async function inRussian(name: string) {
    const { page } = rig;
    await page.getByRole('button', { name: 'Русский' }).click();
    await page.getByRole('heading', { name: 'События', level: 1 }).waitFor();
    await step(rig, name);
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
  }

  /** A moment as the browser's datetime-local input takes it: the reader's own time, to the second. */
  const localInput = (at: Date) =>
    rig.page.evaluate((ms) => {
      const d = new Date(ms);
      const two = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    }, at.getTime());

  const card = () => rig.page.locator('section.subscription').first();
  const delivered = (id: string) => receiver.received.filter((event) => event.id === id).length;

  it('shows an approver no Events, and tells one who opens its address that admins manage it', async () => {
    const { page } = rig;
    await signIn(KEYS.approver);
    expect(await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts()).not.toContain('Events');
    await page.goto('/#/events');
    await page.getByText('Event subscriptions are managed by admins.').waitFor();
  });

  let since: Date;
  let firstRun: string[];

  it('subscribes an endpoint, shows the secret once with a copy button, and refuses an address in words', async () => {
    const { page } = rig;
    await signIn(KEYS.admin);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Events' }).click();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    await page.getByText('No subscriptions yet: no event is sent anywhere.').waitFor();

    await page.getByLabel('Endpoint URL').fill('http://hr.example.com/payout-events');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    const refusal = page.locator('form.events-new [role="alert"]');
    await refusal.getByText(/^Events cannot be sent to this address/).waitFor();
    expect(await refusal.getAttribute('data-code')).toBe('EVENT_ENDPOINT_REFUSED');
    await step(rig, '31-events-refused');

    since = new Date(Date.now() - 1_000);
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('What it is for (optional)').fill('HR system');
    // The HR system takes lists: what follows is delivered ten events to a request at most.
    expect(await page.getByLabel('Events per request').inputValue()).toBe('1');
    await page.getByLabel('Events per request').fill('10');
    for (const type of ['Batch approved', 'Row paid', 'Row not paid', 'Batch completed', 'Batch completed with failures']) {
      await page.getByRole('checkbox', { name: type, exact: true }).check();
    }
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByRole('heading', { name: 'Signing secret, shown this once', level: 2 }).waitFor();
    const secret = (await page.locator('.secret-once .secret').innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(secret);
    receiver.secrets.push(copied);
    await card().getByText('Up to date: every event has been delivered.').waitFor();
    await card().getByText('5 types: Batch approved, Row paid, Row not paid, Batch completed, Batch completed with failures').waitFor();
    await card().getByText('Lists of up to 10 events per request').waitFor();
    await step(rig, '31-events-subscribed');

    await page.getByRole('button', { name: 'Done, hide it' }).click();
    await page.reload();
    await card().getByText('Up to date: every event has been delivered.').waitFor();
    expect(await page.locator('body').innerText()).not.toContain(secret);
  });

  it('logs the deliveries of a payroll as they happen', async () => {
    const { page } = rig;
    await approveSamplePayroll(started);
    await eventually(() => {
      expect(receiver.received.map((event) => event.type)).toContain('batch.approved');
      expect(receiver.received.some((event) => event.type.startsWith('batch.completed'))).toBe(true);
    }, WAIT);
    expect(receiver.unverified).toEqual([]);
    firstRun = receiver.received.map((event) => event.id);
    expect(receiver.received.map((event) => event.sequence)).toEqual(firstRun.map((_, i) => i + 1));

    await page.goto('/#/events');
    await card().getByText('Up to date: every event has been delivered.').waitFor();
    await card().getByRole('button', { name: 'Show the delivery log' }).click();
    const log = card().locator('.delivery-log');
    await eventually(async () => expect(await log.locator('tbody tr[data-outcome="delivered"]').count()).toBe(firstRun.length), WAIT);
    await log.getByText('Batch approved', { exact: true }).waitFor();
    await log.getByText('Delivered (HTTP 204)').first().waitFor();
    await step(rig, '31-events-log');
    await inRussian('31-events-log-ru');
  });

  it('says so at the top while the receiver refuses, and delivers again once it answers', async () => {
    const { page } = rig;
    receiver.answer('fail');
    await card()
      .getByLabel(/^Send again every event since/)
      .fill(await localInput(since));
    await card().getByRole('button', { name: 'Replay', exact: true }).click();
    await card()
      .getByText(`${firstRun.length} events will be sent again, in order, with their ids: a receiver drops those it has.`)
      .waitFor();

    const notice = page.getByRole('alert').filter({ has: page.getByRole('heading', { name: 'Some events are not getting through' }) });
    await notice
      .getByText(/^HR system has failed since .+; later events wait behind the failing one\. Next try .+\.$/)
      .waitFor({ timeout: WAIT });
    await card()
      .getByText(/^Failing since .+, next try .+\.$/)
      .waitFor();
    const log = card().locator('.delivery-log');
    await log.getByText('Refused by the receiver (HTTP 503)').first().waitFor();
    await log.getByText('down for maintenance').first().waitFor();
    // Newest first: the refused attempts of the replay above the first run's deliveries.
    await eventually(async () => expect(await log.locator('tbody tr').first().getAttribute('data-outcome')).toBe('failed'), WAIT);
    await step(rig, '31-events-failing');
    await inRussian('31-events-failing-ru');

    receiver.answer('ok');
    await card().getByText('Up to date: every event has been delivered.').waitFor({ timeout: WAIT });
    expect(await notice.count()).toBe(0);
    // The replay sent the same events again, in their order, with their ids.
    expect(receiver.received.slice(firstRun.length).map((event) => event.id)).toEqual(firstRun);
    expect(receiver.unverified).toEqual([]);
  });

  it('resends one event from the log: it arrives again with its id', async () => {
    const { page } = rig;
    const row = receiver.received.find((event) => event.type === 'batch_row.paid')!;
    const before = delivered(row.id);
    const log = card().locator('.delivery-log');
    await log
      .locator(`tr[data-event-id="${row.id}"][data-outcome="delivered"]`)
      .first()
      .getByRole('button', { name: /^Resend event no\. \d+, Row paid$/ })
      .click();
    await log.getByText('“Row paid” sent again: Delivered (HTTP 204).').waitFor();
    expect(delivered(row.id)).toBe(before + 1);
    const again = receiver.received.at(-1)!;
    expect(again).toMatchObject({ id: row.id, type: 'batch_row.paid', sequence: row.sequence, data: row.data });
    await log.getByText('sent again by hand').first().waitFor();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
  });

  it('makes a new secret, shown once with until when the old one signs; both verify meanwhile', async () => {
    const { page } = rig;
    await card().getByRole('button', { name: 'New secret' }).click();
    await page.getByRole('heading', { name: 'Signing secret, shown this once', level: 2 }).waitFor();
    await page.getByText(/^The old secret still signs beside the new one until .+: switch the receiver before then\.$/).waitFor();
    const secret = (await page.locator('.secret-once .secret').innerText()).trim();
    expect(secret).not.toBe(receiver.secrets[0]);
    receiver.secrets.push(secret);
    await card()
      .getByText(/^The old secret still signs until /)
      .waitFor();
    await step(rig, '31-events-new-secret');
    await page.getByRole('button', { name: 'Done, hide it' }).click();

    const row = receiver.received[0]!;
    await card()
      .locator(`.delivery-log tr[data-event-id="${row.id}"][data-outcome="delivered"]`)
      .first()
      .getByRole('button', { name: /^Resend/ })
      .click();
    await eventually(() => expect(receiver.received.at(-1)).toMatchObject({ id: row.id, verifiedBy: [0, 1] }), WAIT);
  });

  it('turns a subscription off and on, and deletes it after asking', async () => {
    const { page } = rig;
    await card().getByRole('button', { name: 'Turn off' }).click();
    await card()
      .getByText(/^Off since .+: turned off by events-admin\.$/)
      .waitFor();
    await page.getByText(/^HR system is off \(turned off by events-admin\)/).waitFor();
    await card().getByRole('button', { name: 'Turn on' }).click();
    await card().getByText('Up to date: every event has been delivered.').waitFor();
    expect(await page.getByText('Some events are not getting through').count()).toBe(0);

    await card().getByRole('button', { name: 'Delete' }).click();
    const question = card()
      .getByRole('group')
      .filter({ hasText: /^Delete the subscription to / });
    await question.waitFor();
    await step(rig, '31-events-delete');
    await question.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No subscriptions yet: no event is sent anywhere.').waitFor();
    expect(rig.problems).toEqual([]);
  });
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPageRig, step, suite, uploadAndOpen } from '../support/browser.ts';
import { eventually } from '../support/eventually.ts';
import { breakerStates } from '../../src/partner/breaker-states.ts';

/**
 * Issue 38, section 3 finding 3: a small batch during a partner outage showed "0 of 2 rows
 * finished · Paying", rate 0, rows "Creating", and no word of the partner: the breaker opens
 * only after 12 failed calls, which two rows take minutes to make. From the first failed
 * call its rows wait for, the batch says why (GraphQL `waiting`, the page, the list).
 */
suite('the web page: a small batch says why it waits from the first retry', () => {
  let started: Awaited<ReturnType<typeof startPageRig>>;
  beforeAll(async () => {
    started = await startPageRig('payout-web-retry-wait-');
  });
  afterAll(async () => {
    await started?.gateway.upstream.sandbox?.outage.clear();
    await started?.close();
  });

  async function waitingOf(id: string): Promise<{ reason: string; waitingFor: string } | null> {
    const response = await request(`${started.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query($id: ID!) { batch(id: $id) { waiting { reason waitingFor } } }', variables: { id } }),
    });
    const body = (await response.body.json()) as { data: { batch: { waiting: { reason: string; waitingFor: string } | null } } };
    return body.data.batch.waiting;
  }

  it('shows "Waiting: the Payout API does not answer as it should" while the breaker is still closed', async () => {
    const { gateway, rig, dataDir } = started;
    const { page } = rig;
    const file = join(dataDir, 'two-rows.csv');
    await writeFile(
      file,
      'reference,provider,amount,currency,pan,cardholder_name,cardholder_lastname\nTWO-1,bank-card-russia,100.00,RUB,2200000000000004,IVAN,IVANOV\nTWO-2,bank-card-russia,200.00,RUB,2200000000000004,ANNA,PETROVA\n',
    );
    const id = await uploadAndOpen(rig, file);
    // Creates and executes answer 503 (Retry-After 60 s); balance reads are served, so approval passes.
    await gateway.upstream.sandbox!.outage.start({
      mode: 'status',
      status: 503,
      retryAfterSeconds: 60,
      forMs: 600_000,
      kinds: ['create', 'execute'],
    });
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.getByRole('group').getByRole('button', { name: 'Approve and pay' }).click();

    const wait = await eventually(async () => {
      const now = await waitingOf(id);
      expect(now?.reason).toBe('PARTNER_RETRYING');
      return now!;
    }, 30_000);
    expect(wait.waitingFor).toMatch(/^the Payout API to answer: \d rows? (is|are) tried again by themselves/);
    // The breaker has not opened: this is the rows' own retry speaking.
    expect(await gateway.services.prisma.partnerBreaker.count({ where: { state: breakerStates.open } })).toBe(0);

    await page.reload();
    await page.getByText('Waiting: the Payout API does not answer as it should; rows are tried again by themselves').waitFor();
    await step(rig, '38-retry-wait');
    await page.goto('/#/');
    await page
      .locator('table.batches tbody tr', { has: page.locator(`a[href="#/batches/${id}"]`) })
      .locator('.wait-sign')
      .waitFor();
    expect(rig.problems).toEqual([]);
  });
});

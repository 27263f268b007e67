import { expect, it } from 'vitest';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { pageRigWithoutWorker, step, suite } from '../support/browser.ts';

/**
 * Issue 29, finding 1: "Find a payment" while the partner refuses connections shows the
 * gateway's record of the payment, with a note that the partner did not answer and the
 * record's time in the page's locale, instead of failing as a whole.
 */
suite('the web page: finding a payment while the partner is down', () => {
  const rigOf = pageRigWithoutWorker('payout-web-find-recorded-');

  it('shows the payment from the gateway’s record with a note saying so, in local time', async () => {
    const { gateway, rig } = rigOf();
    const response = await gateway.yoga.fetch('http://gateway/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($input: CreatePaymentInput!) { createPayment(input: $input) { __typename } }',
        variables: {
          input: { paymentId: 'find-down-1', amount: '75.00', payee: 'E-77', recipient: { bankCardToken: { account: 'token_success' } } },
        },
      }),
    });
    expect(((await response.json()) as any).data.createPayment.__typename).toBe('CreatePaymentSuccess');

    await gateway.upstream.sandbox!.outage.start({ mode: 'refuse', forMs: 120_000, kinds: [...allCallKinds] });
    const { page } = rig;
    await page.goto('/#/find?q=find-down-1');
    await page.getByRole('heading', { name: 'find-down-1', level: 2 }).waitFor();
    const note = page.getByText(/^The partner did not answer; this is the gateway’s record as of /);
    await note.waitFor();
    const text = (await note.textContent())!;
    // The page's locale (en-GB), not an ISO time.
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(text).toMatch(/\d{1,2} \w{3} \d{4}/);
    expect(await page.getByText('PAYOUT_ERROR').count()).toBe(0);
    expect(await page.getByText('75.00').count()).toBeGreaterThan(0);
    // A single payment that names its payee shows it, with its mark, as a batch row does.
    const payee = page.locator('dd.payee');
    await payee.getByText('E-77').waitFor();
    expect(await payee.getByText('New payee', { exact: true }).count()).toBe(1);
    await step(rig, '40-find-recorded');
  });
});

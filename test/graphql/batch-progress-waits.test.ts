import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCallKinds } from '../../src/sandbox/outage.ts';
import { textSource } from '../support/batch.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { subscribeSse } from '../support/sse.ts';

/**
 * Issue 19, "visible": a batch page left open is fed by batchProgress. When the partner
 * breaker opens, every running batch waits, though no row of it changes: the subscription
 * must say so then, and again when the breaker closes, not only on the next page load.
 */
describe.each(testDatabaseKinds())('batchProgress while the partner is down, on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    // No worker: the batch stays RUNNING with nothing paid, and only the breaker changes.
    gw = await startTestGateway({ env: { WORKER_IN_PROCESS: 'false', PAYOUT_MAX_RETRIES: '0' }, database: kind });
  });
  afterAll(() => gw.close());

  it('tells an open subscription when the breaker opens, and when it closes', async () => {
    const batch = await gw
      .services()
      .importer.import({ source: textSource('provider,amount,account\nbank-card-token,71.00,token_success\n') });
    await gw.services().batches.approve(batch.id, { approver: 'anonymous' });
    const sse = await subscribeSse(
      `${gw.gateway.url}/graphql`,
      {},
      `subscription { batchProgress(id: "${batch.id}") { status waiting { reason } } }`,
      (data) => `${data.batchProgress.status} ${data.batchProgress.waiting?.reason ?? '-'}`,
      (values) => values.includes('RUNNING PARTNER_FAILING') && values.at(-1) === 'RUNNING -',
    );
    await sse.first;
    expect(sse.values).toEqual(['RUNNING -']);

    // The partner answers 503 to everything; reads of a dozen payments open the breaker.
    await gw.sb.sandbox.outage.start({ mode: 'status', status: 503, retryAfterSeconds: 1, forMs: 600_000, kinds: [...allCallKinds] });
    const client = gw.services().client;
    await Promise.allSettled(Array.from({ length: 12 }, (_, i) => client.getPayment(`missing-${i}`)));
    await waitFor(() => sse.values.includes('RUNNING PARTNER_FAILING'));
    // The partner is back: the breaker's probe closes it, and the page hears that too.
    await gw.sb.sandbox.outage.clear();
    await sse.done;
    expect(sse.values.at(-1)).toBe('RUNNING -');
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  await eventually(() => expect(condition()).toBe(true), 60_000);
}

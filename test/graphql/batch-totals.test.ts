import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile, textSource } from '../support/batch.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * Issue 29, findings 3, 6 and 7 in GraphQL: a batch says what it pays apart from what its file
 * holds (held rows are not paid), what the partner charged, and a batch that paid nothing can
 * be taken off the list without leaving the record.
 */
describe('what a batch pays, what it was charged, and dismissing one that paid nothing', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ sandbox: { inProgressMs: 50 } });
  });
  afterAll(() => gw.close());

  const importText = async (text: string, force = false) =>
    (await gw.services().importer.import({ source: textSource(text), uploadedBy: 'clerk', force })).id;
  const batchOf = async (id: string, fields: string) => (await gw.gql(`{ batch(id: "${id}") { ${fields} } }`)).body.data.batch;
  const TOTALS =
    'status validCount heldCount totalAmount { value } heldAmount { value } payableCount payableAmount { value currency } paysAll: payableCount(includeHeld: true) paysAllAmount: payableAmount(includeHeld: true) { value } commissionCharged { value currency }';

  async function approveAndFinish(id: string) {
    const reply = await gw.gql(`mutation { approveBatch(id: "${id}") { __typename } }`);
    expect(reply.body.data.approveBatch.__typename).toBe('ApproveBatchSuccess');
    return eventually(async () => {
      const batch = await batchOf(id, `${TOTALS} counts { status count }`);
      expect(batch.status).toBe('COMPLETED_WITH_FAILURES');
      return batch;
    }, 30_000);
  }

  let first: string;
  it('charges the commission of its paid payments, and 0.00 before any', async () => {
    const text = readFileSync(sampleFile('payroll-valid.csv'), 'utf8');
    first = await importText(text, true);
    expect((await batchOf(first, TOTALS)).commissionCharged).toEqual({ value: '0.00', currency: 'RUB' });
    const done = await approveAndFinish(first);
    // The Payment records of its paid rows, added up here in minor units.
    const rows = (await gw.gql(`{ batch(id: "${first}") { items(status: COMPLETED) { edges { node { paymentId } } } } }`)).body.data.batch
      .items.edges as Array<{ node: { paymentId: string } }>;
    let minor = 0n;
    for (const { node } of rows) {
      const payment = (await gw.gql(`{ payment(paymentId: "${node.paymentId}") { commission { value } } }`)).body.data.payment;
      minor += BigInt(payment.commission.value.replace('.', ''));
    }
    expect(rows).toHaveLength(7);
    expect(minor).toBeGreaterThan(0n);
    expect(done.commissionCharged).toEqual({ value: `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`, currency: 'RUB' });
  });

  it('counts a re-sorted re-upload’s held rows apart from the rows it pays', async () => {
    const [header, ...rows] = readFileSync(sampleFile('payroll-valid.csv'), 'utf8').trimEnd().split('\n');
    const again = await importText(`${[header, ...rows.reverse()].join('\n')}\n`);
    expect(await batchOf(again, TOTALS)).toMatchObject({
      validCount: 10,
      heldCount: 7,
      totalAmount: { value: '50950.60' },
      heldAmount: { value: '46950.60' },
      payableCount: 3,
      payableAmount: { value: '4000.00', currency: 'RUB' },
      paysAll: 10,
      paysAllAmount: { value: '50950.60' },
    });
  });

  it('dismisses a rejected upload from the list, keeps it and its audit event, and shows it when asked', async () => {
    const rejected = await importText('provider,amount,account\nbank-card-token,abc,token_success\n');
    expect((await batchOf(rejected, 'status')).status).toBe('REJECTED');
    const listed = async (args: string) =>
      (
        (await gw.gql(`{ batches(first: 50${args}) { edges { node { id dismissedAt } } } }`)).body.data.batches.edges as Array<{
          node: { id: string; dismissedAt: string | null };
        }>
      ).map((e) => e.node);
    expect((await listed('')).map((b) => b.id)).toContain(rejected);

    const reply = await gw.gql(
      `mutation { dismissBatch(id: "${rejected}") { __typename ... on DismissBatchSuccess { batch { id status dismissedAt } } } }`,
    );
    expect(reply.body.data.dismissBatch).toMatchObject({
      __typename: 'DismissBatchSuccess',
      batch: { id: rejected, status: 'REJECTED', dismissedAt: expect.any(String) },
    });
    expect((await listed('')).map((b) => b.id)).not.toContain(rejected);
    expect((await listed(', includeDismissed: true')).find((b) => b.id === rejected)?.dismissedAt).toEqual(expect.any(String));
    const audit = (
      await gw.gql(`{ auditEvents(batchId: "${rejected}", first: 10) { edges { node { action } } } }`)
    ).body.data.auditEvents.edges.map((e: { node: { action: string } }) => e.node.action);
    expect(audit).toContain('BATCH_DISMISS');
  });

  it('refuses to dismiss a batch that pays or paid, and changes nothing', async () => {
    const reply = await gw.gql(`mutation { dismissBatch(id: "${first}") { __typename ... on BatchError { code } } }`);
    expect(reply.body.data.dismissBatch).toEqual({ __typename: 'BatchError', code: 'BATCH_NOT_DISMISSABLE' });
    expect((await batchOf(first, 'dismissedAt')).dismissedAt).toBeNull();
  });
});

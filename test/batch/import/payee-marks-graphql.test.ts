import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCard } from '../../../samples/test-card.ts';
import { textSource } from '../../support/batch.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';

/**
 * Issue 30, part 3 end to end: the gateway's own worker pays a payroll with payees through the
 * sandbox; next month's payroll with one card changed shows the marks in GraphQL and the
 * results export, is held until the approver includes it, and once paid the new card is the
 * one remembered.
 */
describe('payee marks through GraphQL, the worker and the export', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ sandbox: { inProgressMs: 20 } });
  });
  afterAll(() => gw.close());

  const payroll = (month: string, cards: [string, string, string]) =>
    'reference,payee,provider,amount,pan,cardholder_name,cardholder_lastname\n' +
    `${month}-1,E-1,bank-card-russia,1000.00,${cards[0]},IVAN,IVANOV\n` +
    `${month}-2,E-2,bank-card-russia,2000.00,${cards[1]},ANNA,PETROVA\n` +
    `${month}-3,E-3,bank-card-russia,3000.00,${cards[2]},OLEG,SIDOROV\n`;

  const BATCH = `query Batch($id: ID!) { batch(id: $id) {
    status heldCount changedAccountCount changedAccountAmount { value } includeChangedAccounts
    payableCount payableAmount { value } changedAccountRowsIncluded(includeChangedAccounts: true)
    payeeMarks { newPayees changedAccounts knownPayees changedSince }
    items(first: 10) { edges { node { line status payee payeeMark { kind lastPaidAt } } } } } }`;
  const batchOf = async (id: string) => (await gw.gql(BATCH, { id })).body.data.batch;

  async function approve(id: string, args = '') {
    const reply = await gw.gql(
      `mutation { approveBatch(id: "${id}"${args}) { __typename ... on ApproveBatchSuccess { batch { includeChangedAccounts } } } }`,
    );
    expect(reply.body.data.approveBatch.__typename).toBe('ApproveBatchSuccess');
    return eventually(async () => {
      const batch = await batchOf(id);
      expect(batch.status).toBe('COMPLETED');
      return batch;
    }, 30_000);
  }

  it('marks, holds, pays when included, and remembers the new card', async () => {
    const october = await gw.services().importer.import({ source: textSource(payroll('OCT', [testCard(1), testCard(2), testCard(3)])) });
    const before = await batchOf(october.id);
    expect(before.items.edges.map((e: any) => e.node.payeeMark.kind)).toEqual(['NEW_PAYEE', 'NEW_PAYEE', 'NEW_PAYEE']);
    await approve(october.id);
    const accounts = await gw.db.prisma.payeeAccount.findMany({ where: { payeeId: { in: ['E-1', 'E-2', 'E-3'] } } });
    const paidAt = (payee: string) => accounts.find((a) => a.payeeId === payee)!.lastPaidAt.toISOString();
    expect(accounts.map((a) => a.lastPaymentId).sort()).toEqual([2, 3, 4].map((line) => `${october.id}-${line}`));

    const november = await gw.services().importer.import({ source: textSource(payroll('NOV', [testCard(1), testCard(4), testCard(3)])) });
    const marked = await batchOf(november.id);
    expect(marked).toMatchObject({
      status: 'VALIDATED',
      heldCount: 0,
      changedAccountCount: 1,
      changedAccountAmount: { value: '2000.00' },
      payableCount: 2,
      payableAmount: { value: '4000.00' },
      changedAccountRowsIncluded: 1,
    });
    expect(marked.payeeMarks).toEqual({ newPayees: 0, changedAccounts: 1, knownPayees: 2, changedSince: paidAt('E-2') });
    expect(marked.items.edges.map((e: any) => [e.node.payee, e.node.status, e.node.payeeMark.kind, e.node.payeeMark.lastPaidAt])).toEqual([
      ['E-1', 'PENDING', 'KNOWN', paidAt('E-1')],
      ['E-2', 'DUPLICATE', 'ACCOUNT_CHANGED', paidAt('E-2')],
      ['E-3', 'PENDING', 'KNOWN', paidAt('E-3')],
    ]);

    const csv = await gw.http(`/batches/${november.id}/results.csv`);
    expect(csv.status).toBe(200);
    const [header, , changed] = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
      .map((line) => line.split(','));
    expect(header!.slice(-4, -1)).toEqual(['payee', 'payee_mark', 'payee_last_paid_at']);
    expect(changed!.slice(-4)).toEqual(['E-2', 'ACCOUNT_CHANGED', paidAt('E-2'), 'held: not paid unless the approver includes it']);
    expect(csv.text).not.toContain(testCard(4));

    const paid = await approve(november.id, ', includeChangedAccounts: true');
    expect(paid).toMatchObject({ includeChangedAccounts: true, payableCount: 3 });
    expect(await gw.db.prisma.payment.count({ where: { batchId: november.id, status: 'COMPLETED' } })).toBe(3);

    // The card paid in November is now the one remembered: December's payroll with it is known.
    const december = await gw.services().importer.import({ source: textSource(payroll('DEC', [testCard(1), testCard(4), testCard(3)])) });
    expect((await batchOf(december.id)).items.edges.map((e: any) => e.node.payeeMark.kind)).toEqual(['KNOWN', 'KNOWN', 'KNOWN']);
  });
});

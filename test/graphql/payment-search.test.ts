import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentIdFor } from '../../src/batch/ids.ts';
import { testWorker, textSource } from '../support/batch.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';

const SEARCH = `query($reference: String, $batchId: ID, $status: TrackingStatus, $from: Date, $to: Date, $first: Int, $after: String) {
  searchPayments(reference: $reference, batchId: $batchId, status: $status, from: $from, to: $to, first: $first, after: $after) {
    edges { cursor node { paymentId reference trackingStatus batchId batchRow amount { value } createdAt } }
    pageInfo { hasNextPage hasPreviousPage endCursor }
  } }`;

describe.each(testDatabaseKinds())('searchPayments on $name', (kind) => {
  let gw: TestGateway;
  let batchId: string;
  const search = async (variables: Record<string, unknown>, key = 'v') => {
    const reply = await gw.gql(SEARCH, variables, apiKey(key));
    return reply.body;
  };
  const ids = async (variables: Record<string, unknown>) =>
    (await search(variables)).data.searchPayments.edges.map((e: any) => e.node.paymentId);

  beforeAll(async () => {
    gw = await startTestGateway({
      env: { WORKER_IN_PROCESS: 'false', GATEWAY_API_KEYS: apiKeysEnv({ v: 'viewer', op: 'operator' }) },
      sandbox: { inProgressMs: 50 },
      database: kind,
    });
    const s = gw.services();
    const batch = await s.importer.import({
      source: textSource(
        'reference,provider,amount,account,bankId\nMAR-7,sbp-b2c,101.00,79001234567,sbp_bank_id_success\nMAR-8,sbp-b2c,102.00,79001234568,sbp_bank_id_create_failed\nMAR-9,bank-card-token,103.00,token_success,\n',
      ),
    });
    batchId = batch.id;
    await s.batches.approve(batchId, { approver: 'anonymous' });
    await testWorker(gw).drain(async () => (await gw.db.prisma.batch.findUniqueOrThrow({ where: { id: batchId } })).status !== 'RUNNING');

    // Records from long before the upstream's 50-day window, with the row's earlier attempt:
    // what the gateway keeps and the upstream list no longer shows.
    const db = gw.db.prisma;
    const old = 'bold0000001';
    await db.batch.create({ data: { id: old, name: 'March 2025', fileHash: '0'.repeat(64), fileBytes: 1, status: 'COMPLETED' } });
    await db.batchItem.create({
      data: {
        batchId: old,
        line: 2,
        reference: 'MAR-7',
        paymentId: paymentIdFor(old, 2, 2),
        attempt: 2,
        providerCode: 'sbp-b2c',
        amount: '99.00',
        currency: 'RUB',
        fields: {},
        status: 'COMPLETED',
      },
    });
    for (const [paymentId, createdAt, status] of [
      [paymentIdFor(old, 2, 1), '2025-03-03T09:00:00Z', 'FAILED'],
      [paymentIdFor(old, 2, 2), '2025-03-04T09:00:00Z', 'COMPLETED'],
    ] as const) {
      await db.payment.create({
        data: {
          paymentId,
          agentId: 'agent-1',
          amount: '99.00',
          currency: 'RUB',
          providerCode: 'sbp-b2c',
          recipient: {},
          status,
          batchId: old,
          batchRow: 2,
          createdAt: new Date(createdAt),
        },
      });
    }
  }, 120_000);
  afterAll(() => gw.close());

  it('finds every payment of a payer’s reference, newest first, across batches and any date range', async () => {
    const found = (await search({ reference: 'MAR-7' })).data.searchPayments;
    expect(found.edges.map((e: any) => [e.node.paymentId, e.node.reference, e.node.trackingStatus])).toEqual([
      [`${batchId}-2`, 'MAR-7', 'COMPLETED'],
      ['bold0000001-2-r2', 'MAR-7', 'COMPLETED'],
      ['bold0000001-2', 'MAR-7', 'FAILED'],
    ]);
    expect(found.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    expect(await ids({ reference: 'MAR-404' })).toEqual([]);
  });

  it('filters by batch, status and day range (both days included)', async () => {
    expect(await ids({ batchId })).toEqual(expect.arrayContaining([`${batchId}-2`, `${batchId}-3`, `${batchId}-4`]));
    expect((await ids({ batchId })).length).toBe(3);
    expect(await ids({ batchId, status: 'FAILED' })).toEqual([`${batchId}-3`]);
    expect(await ids({ from: '2025-03-04', to: '2025-03-04' })).toEqual(['bold0000001-2-r2']);
    expect(await ids({ from: '2025-03-01', to: '2025-03-31', status: 'FAILED' })).toEqual(['bold0000001-2']);
    expect(await ids({ reference: 'MAR-7', to: '2025-12-31' })).toEqual(['bold0000001-2-r2', 'bold0000001-2']);
  });

  it('pages forward with cursors, with no payment missed or repeated', async () => {
    const all = await ids({ first: 100 });
    expect(all.length).toBe(5);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = (await search({ first: 2, ...(after === undefined ? {} : { after }) })).data.searchPayments;
      seen.push(...page.edges.map((e: any) => e.node.paymentId));
      expect(page.pageInfo.hasPreviousPage).toBe(after !== undefined);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all);
    // Newest first by when the gateway recorded each payment, as the field's description says;
    // Payment.createdAt shows the upstream's time, which can order two payments otherwise.
    const recorded = await gw.db.prisma.payment.findMany({
      where: { paymentId: { in: all } },
      select: { paymentId: true, createdAt: true },
    });
    const at = new Map(recorded.map((p) => [p.paymentId, p.createdAt.getTime()]));
    const order = [...all].sort((a, b) => at.get(b)! - at.get(a)! || (b < a ? -1 : b > a ? 1 : 0));
    expect(all).toEqual(order);
  });

  it('cuts a page larger than 99 to 99, as every connection does', async () => {
    const page = (await search({ first: 500 })).data.searchPayments;
    expect(page.edges.length).toBe(5);
  });

  it('refuses what it cannot do, in words', async () => {
    const messages = async (variables: Record<string, unknown>) => (await search(variables)).errors?.map((e: any) => e.message);
    expect(await messages({ first: 0 })).toEqual(['first must be 1 or more']);
    expect(await messages({ after: 'bm9wZQ' })).toEqual(['after is not a cursor of searchPayments']);
    expect(await messages({ from: '2025-03-05', to: '2025-03-04' })).toEqual(['from is after to']);
    // Backward paging works (test/graphql/relay.test.ts); its mistakes are named like these.
    const backwards = await gw.gql('{ searchPayments(last: 0) { edges { cursor } } }', {}, apiKey('v'));
    expect(backwards.body.errors?.[0]?.message).toBe('last must be 1 or more');
  });

  it('needs an API key, like every read', async () => {
    const reply = await gw.gql('{ searchPayments { edges { cursor } } }');
    expect(reply.body.data?.searchPayments ?? null).toBeNull();
    expect(reply.body.errors?.length).toBeGreaterThan(0);
  });
});

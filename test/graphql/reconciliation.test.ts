import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sbpPayment } from '../support/sandbox.ts';
import { addDays } from '../../src/reconciliation/period.ts';
import { alterUpstream, payBehind, today } from '../support/reconciliation.ts';
import { apiKey } from '../support/keys.ts';

const RUN_FIELDS = `id from to timeZone status trigger phase daysRead daysToRead upstreamRequests matchedCount discrepancyCount openCount repairedCount error
  upstream { count amount { value currency } commission { value } paidCount paidAmount { value } }
  gateway { count amount { value currency } commission { value } paidCount paidAmount { value } }
  countsByCode { code count } discrepanciesUrl`;

describe('reconciliation over GraphQL and the download route', () => {
  let gw: TestGateway;
  const keys = { operator: apiKey('operator'), viewer: apiKey('viewer') };
  beforeAll(async () => {
    gw = await startTestGateway({
      env: { WORKER_IN_PROCESS: 'false', GATEWAY_API_KEYS: `${keys.operator}:operator,${keys.viewer}:viewer` },
      sandbox: { inProgressMs: 60_000 },
    });
  });
  afterAll(() => gw.close());

  const start = (variables: Record<string, unknown>, key = keys.operator) =>
    gw.gql(
      `mutation ($from: Date, $to: Date) { startReconciliation(from: $from, to: $to) {
        __typename ... on StartReconciliationSuccess { run { ${RUN_FIELDS} } }
        ... on ReconciliationPeriodError { message field } ... on Problem { code } } }`,
      variables,
      key,
    );
  const read = async (id: string, key = keys.viewer) =>
    (
      await gw.gql(
        `query ($id: ID!) { reconciliationRun(id: $id) { ${RUN_FIELDS}
      discrepancies(first: 10) { edges { node { code paymentId gatewayValue upstreamValue finalSide resolution amount { value } } } pageInfo { hasNextPage } }
      statusOnly: discrepancies(code: STATUS_DIFFERS) { edges { node { paymentId } } } } }`,
        { id },
        key,
      )
    ).body.data.reconciliationRun;

  it('starts a run, follows it to the end, lists and filters what it found, and exports it', async () => {
    await gw.services().payments.create({ paymentId: 'gql-1', payload: sbpPayment('sbp_bank_id_success', '300.00'), execute: true });
    await gw.services().payments.create({ paymentId: 'gql-2', payload: sbpPayment('sbp_bank_id_success', '200.00'), execute: true });
    await alterUpstream(gw.sb, 'gql-2', { status: 'FAILED', errorCode: 'BILLING_DECLINED' });
    await payBehind(gw.sb, { paymentId: 'gql-behind', amount: '50.00' });

    const started = await start({ from: today(), to: today() });
    expect(started.body.errors).toBeUndefined();
    const run = started.body.data.startReconciliation.run;
    expect(run).toMatchObject({ status: 'RUNNING', from: today(), to: today(), timeZone: 'UTC', trigger: 'GRAPHQL' });

    const done = await eventually(async () => {
      const now = await read(run.id);
      expect(now.status).toBe('COMPLETED');
      return now;
    }, 60_000);
    expect(done).toMatchObject({ discrepancyCount: 2, openCount: 2, repairedCount: 0, matchedCount: 1, phase: 'DONE' });
    expect(done.upstream).toMatchObject({
      count: 3,
      amount: { value: '550.00', currency: 'RUB' },
      paidCount: 2,
      paidAmount: { value: '350.00' },
    });
    expect(done.gateway).toMatchObject({ count: 2, amount: { value: '500.00' }, paidCount: 2, paidAmount: { value: '500.00' } });
    expect(done.countsByCode).toEqual([
      { code: 'UNKNOWN_TO_GATEWAY', count: 1 },
      { code: 'STATUS_DIFFERS', count: 1 },
    ]);
    expect(done.discrepancies.edges.map((e: any) => e.node)).toEqual([
      {
        code: 'UNKNOWN_TO_GATEWAY',
        paymentId: 'gql-behind',
        gatewayValue: null,
        upstreamValue: 'COMPLETED',
        finalSide: null,
        resolution: 'OPEN',
        amount: { value: '50.00' },
      },
      {
        code: 'STATUS_DIFFERS',
        paymentId: 'gql-2',
        gatewayValue: 'COMPLETED',
        upstreamValue: 'FAILED',
        finalSide: 'BOTH',
        resolution: 'OPEN',
        amount: { value: '200.00' },
      },
    ]);
    expect(done.statusOnly.edges).toEqual([{ node: { paymentId: 'gql-2' } }]);

    const list = await gw.gql('{ reconciliationRuns(first: 5) { edges { node { id status } } } }', {}, keys.viewer);
    expect(list.body.data.reconciliationRuns.edges[0].node).toEqual({ id: run.id, status: 'COMPLETED' });

    const csv = await gw.http(done.discrepanciesUrl, { headers: { authorization: `Bearer ${keys.viewer}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-disposition']).toContain(`reconciliation-${today()}-${today()}-${run.id}.csv`);
    const lines = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      'code,resolution,payment_id,batch_id,batch_row,amount,currency,gateway_status,upstream_status,final_side,gateway_value,upstream_value,payment_created_at',
    );
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 3).join(','))).toEqual([
      'UNKNOWN_TO_GATEWAY,OPEN,gql-behind',
      'STATUS_DIFFERS,OPEN,gql-2',
    ]);
    const xlsx = await gw.http(`${done.discrepanciesUrl}?format=xlsx`, { headers: { authorization: `Bearer ${keys.viewer}` } });
    expect(xlsx.status).toBe(200);
    expect(xlsx.headers['content-type']).toContain('spreadsheetml');
  });

  it('refuses a period it cannot read whole, naming the input', async () => {
    const future = await start({ from: today(), to: addDays(today(), 1) });
    expect(future.body.data.startReconciliation).toMatchObject({
      __typename: 'ReconciliationPeriodError',
      field: 'TO',
      code: 'BAD_USER_INPUT',
    });
    const old = await start({ from: addDays(today(), -60), to: addDays(today(), -55) });
    expect(old.body.data.startReconciliation.__typename).toBe('ReconciliationPeriodError');
    expect(old.body.data.startReconciliation.field).toBe('FROM');
    expect(old.body.data.startReconciliation.message).toMatch(/50 days.*earliest day that can be reconciled today is \d{4}-\d{2}-\d{2}/);
    const backwards = await start({ from: today(), to: addDays(today(), -1) });
    expect(backwards.body.data.startReconciliation).toMatchObject({ field: 'FROM', message: expect.stringContaining('is after') });
  });

  it('lets a viewer read runs but not start one', async () => {
    const refused = await start({}, keys.viewer);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('answers 404 for a run that does not exist and 401 without a key', async () => {
    expect(
      (await gw.http('/reconciliations/rnope/discrepancies.csv', { headers: { authorization: `Bearer ${keys.viewer}` } })).status,
    ).toBe(404);
    expect((await gw.http('/reconciliations/rnope/discrepancies.csv')).status).toBe(401);
  });
});

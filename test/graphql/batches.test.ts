import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFile } from '../support/batch.ts';
import { postBatchUpload } from '../support/batch-graphql.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { subscribeSse } from '../support/sse.ts';
import { apiKeysEnv, apiKey } from '../support/keys.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    env: { GATEWAY_API_KEYS: apiKeysEnv({ op: 'operator', op2: 'operator', ap: 'approver', v: 'viewer', ad: 'admin' }) },
    sandbox: { inProgressMs: 50 },
  });
});
afterAll(() => gw.close());

const BATCH_FIELDS = `id name fileName status rowCount validCount invalidCount warningCount totalAmount { value }
  uploadedBy approvedBy counts { status count amount } resultsUrl
  problems { line column code severity message }`;

/** A GraphQL multipart request over real HTTP, as a browser or curl would send it. */
async function upload(key: string, content: Buffer | string, fileName: string, extra: Record<string, unknown> = {}) {
  return (await postBatchUpload(gw.gateway.url, content, { key: apiKey(key), fileName, variables: extra, fields: BATCH_FIELDS })).body;
}

const batchQuery = (id: string, key = 'v') => gw.gql(`{ batch(id: "${id}") { ${BATCH_FIELDS} } }`, {}, apiKey(key));

describe('a payroll file through GraphQL', () => {
  let batchId: string;

  it('imports the sample file by multipart upload and validates it', async () => {
    const reply = await upload('op', readFileSync(sampleFile('payroll-valid.csv')), 'payroll-valid.csv', { force: true });
    const batch = reply.data.importBatch.batch;
    expect(batch).toMatchObject({
      status: 'VALIDATED',
      fileName: 'payroll-valid.csv',
      rowCount: 10,
      validCount: 10,
      totalAmount: { value: '50950.60' },
    });
    expect(batch.problems).toEqual([
      {
        line: 3,
        column: 'pan',
        code: 'pan.normalised',
        severity: 'WARNING',
        message: 'spaces removed from the card number 2200********0004',
      },
    ]);
    expect(batch.uploadedBy).toMatch(/^key:/);
    batchId = batch.id;
  });

  it('is approved by an approver, not by an operator', async () => {
    const byOperator = await gw.gql(`mutation { approveBatch(id: "${batchId}") { __typename } }`, {}, apiKey('op2'));
    expect(byOperator.body.errors?.[0]?.message).toMatch(/Not authorized/);
    const approved = await gw.gql(
      `mutation { approveBatch(id: "${batchId}") { __typename ... on ApproveBatchSuccess { batch { status approvedBy } } } }`,
      {},
      apiKey('ap'),
    );
    expect(approved.body.data.approveBatch.batch.status).toBe('RUNNING');
  });

  it('runs to the expected final counts, every sandbox outcome represented', async () => {
    const batch = await eventually(async () => {
      const reply = await batchQuery(batchId);
      expect(reply.body.data.batch.status).toBe('COMPLETED_WITH_FAILURES');
      return reply.body.data.batch;
    }, 20_000);
    expect(batch.counts).toEqual([
      { status: 'COMPLETED', count: 7, amount: '46950.60' },
      { status: 'FAILED', count: 3, amount: '4000.00' },
    ]);
    const items = await gw.gql(
      `{ batch(id: "${batchId}") { items(status: FAILED) { edges { node { line reference status errorCode recipient { key value } } } } } }`,
      {},
      apiKey('v'),
    );
    expect(items.body.data.batch.items.edges.map((e: any) => e.node.reference)).toEqual(['EMP-007', 'EMP-008', 'EMP-010']);
  });

  it('exports the results as CSV with masked card numbers', async () => {
    const response = await gw.http(`/batches/${batchId}/results.csv`, { headers: { authorization: `Bearer ${apiKey('v')}` } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/csv/);
    const lines = response.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe(
      'line,reference,provider,amount,currency,commission,recipient,payment_id,attempt,status,error_code,error_message,transaction_id,rrn,payee,payee_mark,payee_last_paid_at,outcome',
    );
    // Each paid row's commission, as the gateway's Payment record holds it (issue 29, finding 6).
    const paid = await gw.gql(`{ payment(paymentId: "${batchId}-2") { commission { value } } }`, {}, apiKey('v'));
    const commission = paid.body.data.payment.commission.value as string;
    expect(commission).toMatch(/^\d+\.\d{2}$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^2,EMP-001,bank-card-russia,15000\\.00,RUB,${commission.replace('.', '\\.')},.*pan=2200\\*{8}0004.*,COMPLETED,,,[0-9a-f-]{36},\\d{12},,,,paid$`,
      ),
    );
    // A row not paid was charged nothing: its commission cell is empty.
    expect(lines[7]).toMatch(/^8,EMP-007,[a-z0-9-]+,\d+\.\d{2},RUB,,.*,FAILED,.*,not paid[^,]*$/);
    expect(response.text).not.toContain('2200000000000004');
  });

  it('refuses the export without a key', async () => {
    expect((await gw.http(`/batches/${batchId}/results.csv`)).status).toBe(401);
    expect((await gw.http('/batches/nope/results.csv', { headers: { authorization: `Bearer ${apiKey('v')}` } })).status).toBe(404);
  });

  it('pays failed rows again when asked, with new payment ids', async () => {
    // By a key other than the uploader's ('op'): paying rows again needs a second person.
    const reply = await gw.gql(
      `mutation { retryFailedItems(id: "${batchId}") { __typename ... on RetryFailedItemsSuccess { batch { status } } } }`,
      {},
      apiKey('op2'),
    );
    expect(reply.body.data.retryFailedItems.batch.status).toBe('RUNNING');
    await eventually(async () => expect((await batchQuery(batchId)).body.data.batch.status).toBe('COMPLETED_WITH_FAILURES'), 20_000);
    const items = await gw.gql(`{ batch(id: "${batchId}") { items(status: FAILED) { edges { node { paymentId } } } } }`, {}, apiKey('v'));
    expect(items.body.data.batch.items.edges.map((e: any) => e.node.paymentId)).toEqual([
      `${batchId}-8-r2`,
      `${batchId}-9-r2`,
      `${batchId}-11-r2`,
    ]);
  });
});

describe('refusals', () => {
  it('reports row errors with line numbers, and the report as CSV', async () => {
    const reply = await upload('op', readFileSync(sampleFile('payroll-errors.csv')), 'payroll-errors.csv');
    const batch = reply.data.importBatch.batch;
    expect(batch.status).toBe('REJECTED');
    expect(batch.problems[0]).toEqual({
      line: 2,
      column: 'provider',
      code: 'provider.unknown',
      severity: 'ERROR',
      message: expect.stringContaining('paypal'),
    });
    const report = await gw.http(`/batches/${batch.id}/problems.csv`, { headers: { authorization: `Bearer ${apiKey('v')}` } });
    expect(report.text).toContain('2,provider,error,provider.unknown,');
  });

  it('refuses the same file twice unless forced', async () => {
    const content = 'provider,amount,account\nbank-card-token,77.00,token_success\n';
    expect((await upload('op', content, 'a.csv')).data.importBatch.batch.status).toBe('VALIDATED');
    const again = (await upload('op', content, 'a.csv')).data.importBatch.batch;
    expect(again.status).toBe('REJECTED');
    expect(again.problems[0].code).toBe('file.duplicate');
    expect((await upload('op', content, 'a.csv', { force: true })).data.importBatch.batch.status).toBe('VALIDATED');
  });

  it('does not let the uploader approve their own batch', async () => {
    const batch = (await upload('ad', 'provider,amount,account\nbank-card-token,78.00,token_success\n', 'b.csv')).data.importBatch.batch;
    const reply = await gw.gql(`mutation { approveBatch(id: "${batch.id}") { __typename ... on BatchError { code } } }`, {}, apiKey('ad'));
    expect(reply.body.data.approveBatch).toEqual({ __typename: 'BatchError', code: 'BATCH_SAME_PERSON' });
  });

  it('does not let a viewer upload', async () => {
    const reply = await upload('v', 'provider,amount\n', 'c.csv');
    expect(reply.errors?.[0]?.message).toMatch(/Not authorized/);
  });

  it('neutralises cells a spreadsheet would run as formulas', async () => {
    const batch = (
      await upload('op', 'reference,provider,amount,account\n"=HYPERLINK(""http://x"")",bank-card-token,79.00,token_success\n', 'd.csv')
    ).data.importBatch.batch;
    const csv = await gw.http(`/batches/${batch.id}/results.csv`, { headers: { authorization: `Bearer ${apiKey('v')}` } });
    expect(csv.text).toContain(`"'=HYPERLINK(""http://x"")"`);
  });

  it('cancels a batch before it runs', async () => {
    const batch = (await upload('op', 'provider,amount,account\nbank-card-token,80.00,token_success\n', 'e.csv')).data.importBatch.batch;
    const reply = await gw.gql(
      `mutation { cancelBatch(id: "${batch.id}") { __typename ... on CancelBatchSuccess { batch { status } } } }`,
      {},
      apiKey('ap'),
    );
    expect(reply.body.data.cancelBatch.batch.status).toBe('CANCELLED');
  });
});

describe('batches', () => {
  it('lists batches newest first, filtered by status', async () => {
    const all = await gw.gql(
      '{ batches(first: 100) { edges { node { id status createdAt } } pageInfo { hasNextPage } } }',
      {},
      apiKey('v'),
    );
    const nodes = all.body.data.batches.edges.map((e: any) => e.node);
    expect(nodes.length).toBeGreaterThanOrEqual(5);
    const times = nodes.map((n: any) => Date.parse(n.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const rejected = await gw.gql('{ batches(status: REJECTED) { edges { node { status } } } }', {}, apiKey('v'));
    const statuses = rejected.body.data.batches.edges.map((e: any) => e.node.status);
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['REJECTED']));
  });
});

describe('batchProgress over SSE', () => {
  it('streams the batch until it finishes', async () => {
    const batch = (
      await upload(
        'op',
        'provider,amount,account\nbank-card-token,81.00,token_success\nbank-card-token,82.00,token_execute_in_progress\n',
        'f.csv',
      )
    ).data.importBatch.batch;
    const sse = await subscribeSse(
      `${gw.gateway.url}/graphql`,
      { authorization: `Bearer ${apiKey('v')}` },
      `subscription { batchProgress(id: "${batch.id}") { status counts { status count } } }`,
      (data) => data.batchProgress.status,
      (values) => values.includes('COMPLETED'),
    );
    // The first event is the batch as it stands: approving after it, no change can be missed.
    await sse.first;
    // Events are coalesced to 4 a second: one execute's answer is held upstream until RUNNING
    // has been sent, or a fast batch could go from VALIDATED to COMPLETED in one event.
    await gw.sb.addFault({ operation: 'execute', kind: 'hold-after' });
    await gw.gql(`mutation { approveBatch(id: "${batch.id}") { __typename } }`, {}, apiKey('ap'));
    await eventually(() => expect(sse.values).toContain('RUNNING'), 60_000);
    await gw.sb.releaseHeld();
    await sse.done;
    const statuses = sse.values;
    expect(statuses[0]).toBe('VALIDATED');
    expect(statuses).toContain('RUNNING');
    expect(statuses.at(-1)).toBe('COMPLETED');
  });
});

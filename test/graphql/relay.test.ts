import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReconciliationStatus } from '../../src/db/generated/enums.ts';
import { fileSource, sampleFile } from '../support/batch.ts';
import { startTestGateway, type GraphQLReply, type TestGateway } from '../support/gateway.ts';
import { apiKey, apiKeysEnv } from '../support/keys.ts';
import { sbpPayment } from '../support/sandbox.ts';

/**
 * Relay's conventions as a client relies on them: every object a client caches has a
 * global `id` that `node`/`nodes` fetch again under the same access rules as the direct
 * queries, and every connection pages both ways.
 */
let gw: TestGateway;
const admin = apiKey('ad');
const viewer = apiKey('v');
let batchIds: string[] = [];
let runIds: string[] = [];
const paymentIds = ['relay-1', 'relay-2', 'relay-3', 'relay-4', 'relay-5'];

beforeAll(async () => {
  gw = await startTestGateway({
    env: { GATEWAY_API_KEYS: apiKeysEnv({ ad: 'admin', v: 'viewer' }), WORKER_IN_PROCESS: 'false' },
    sandbox: { inProgressMs: 60_000 },
  });
  const services = gw.services();
  for (const paymentId of paymentIds) {
    await services.payments.create({ paymentId, payload: sbpPayment('sbp_bank_id_success', '10.00'), execute: false });
  }
  for (let i = 0; i < 3; i++) {
    const batch = await services.importer.import({
      source: fileSource(sampleFile('payroll-valid.csv')),
      fileName: `relay-${i}.csv`,
      force: true,
      uploadedBy: 'test',
    });
    batchIds.push(batch.id);
  }
  const prisma = gw.db.prisma;
  await prisma.auditEvent.createMany({
    data: [1, 2, 3, 4, 5].map((n) => ({ action: 'batch.approve', actor: `key:t${n}`, batchId: batchIds[0] })),
  });
  runIds = ['r00000000001', 'r00000000002', 'r00000000003'];
  for (const [n, id] of runIds.entries()) {
    await prisma.reconciliationRun.create({
      data: {
        id,
        periodFrom: '2026-11-01',
        periodTo: '2026-11-01',
        timeZone: 'UTC',
        startsAt: new Date('2026-11-01T00:00:00Z'),
        endsAt: new Date('2026-11-02T00:00:00Z'),
        stuckAfterMinutes: 30,
        status: ReconciliationStatus.COMPLETED,
        trigger: 'cli',
        startedAt: new Date(Date.UTC(2026, 10, 2, 0, n)),
        finishedAt: new Date(Date.UTC(2026, 10, 2, 0, n, 30)),
      },
    });
  }
  await prisma.reconciliationDiscrepancy.createMany({
    data: [1, 2, 3, 4, 5].map((n) => ({ runId: runIds[0]!, code: 'MISSING_UPSTREAM' as const, paymentId: `relay-d${n}` })),
  });
});
afterAll(() => gw?.close());

const gql = (query: string, variables: Record<string, unknown> = {}, key = admin) => gw.gql(query, variables, key);
const errorOf = (reply: GraphQLReply) => reply.body.errors?.[0];

describe('global object identification', () => {
  it('gives every cached object an id that node() fetches again, the natural ids kept as fields', async () => {
    const reply = await gql(
      `query($payment: ID!, $batch: ID!, $run: ID!) {
        payment(paymentId: $payment) { id paymentId }
        batch(id: $batch) { id items(first: 1) { edges { node { id batchId line paymentId } } } }
        reconciliationRun(id: $run) { id discrepancies(first: 1) { edges { node { id discrepancyId } } } }
        providers { id code }
        auditEvents(first: 1) { edges { node { id } } }
      }`,
      { payment: 'relay-1', batch: batchIds[0], run: runIds[0] },
    );
    expect(reply.body.errors).toBeUndefined();
    const data = reply.body.data;
    const item = data.batch.items.edges[0].node;
    const discrepancy = data.reconciliationRun.discrepancies.edges[0].node;
    // A batch's and a run's own ids are already unique across types: they are their global ids.
    expect(data.batch.id).toBe(batchIds[0]);
    expect(data.reconciliationRun.id).toBe(runIds[0]);
    expect(data.payment).toEqual({ id: 'Payment:relay-1', paymentId: 'relay-1' });
    expect(item).toMatchObject({ id: `BatchItem:${batchIds[0]}:2`, batchId: batchIds[0], line: 2 });
    expect(discrepancy.id).toBe(`Discrepancy:${discrepancy.discrepancyId}`);
    expect(data.providers[0].id).toMatch(/^Provider:/);

    const ids = [
      data.payment.id,
      data.batch.id,
      item.id,
      data.reconciliationRun.id,
      discrepancy.id,
      data.providers[0].id,
      data.auditEvents.edges[0].node.id,
    ];
    // The sample rows pay card 2200000000000004: an id is keys and line numbers, never a card or an account.
    expect(ids.join(' ')).not.toMatch(/2200|token_|IVANOV/i);
    const again = await gql(
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
        ... on Payment { paymentId } ... on Batch { name } ... on BatchItem { line paymentId } ... on Provider { code } ... on Discrepancy { paymentId } } }`,
      { ids },
    );
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.nodes.map((n: { __typename: string; id: string }) => [n.__typename, n.id])).toEqual(
      ['Payment', 'Batch', 'BatchItem', 'ReconciliationRun', 'Discrepancy', 'Provider', 'AuditEvent'].map((type, i) => [type, ids[i]]),
    );
    expect(again.body.data.nodes[2]).toMatchObject({ line: 2, paymentId: item.paymentId });
    const one = await gql('query($id: ID!) { node(id: $id) { id ... on Payment { paymentId } } }', { id: 'Payment:relay-2' });
    expect(one.body.data.node).toEqual({ id: 'Payment:relay-2', paymentId: 'relay-2' });
  });

  it('answers null for an id that names nothing, and refuses one that is no id, naming it', async () => {
    const missing = await gql('{ nodes(ids: ["Batch:nope", "b00000000000", "BatchItem:b00000000000:2", "Discrepancy:999999"]) { id } }');
    expect(missing.body.data?.nodes).toBeUndefined();
    expect(errorOf(missing)?.message).toBe('"Batch:nope" is not an id of this API');
    const none = await gql(
      '{ nodes(ids: ["b00000000000", "BatchItem:b00000000000:2", "Discrepancy:999999", "Payment:never-made"]) { id } }',
    );
    expect(none.body.data.nodes).toEqual([null, null, null, null]);
    const wrong = await gql('{ node(id: "not-an-id") { id } }');
    expect(errorOf(wrong)).toMatchObject({ message: '"not-an-id" is not an id of this API', extensions: { code: 'BAD_USER_INPUT' } });
    const many = await gql(`{ nodes(ids: ${JSON.stringify(Array.from({ length: 11 }, (_, i) => `Payment:p${i}`))}) { id } }`);
    expect(errorOf(many)).toMatchObject({ message: 'ids must be at most 10', extensions: { code: 'BAD_USER_INPUT', argument: 'ids' } });
  });

  it('applies the same access rules through node as through the direct queries', async () => {
    const direct = await gql('{ auditEvents(first: 1) { edges { node { id action } } } }');
    const eventId = direct.body.data.auditEvents.edges[0].node.id as string;
    // A viewer cannot list the audit trail, and cannot read an event by its id either.
    const listed = await gql('{ auditEvents(first: 1) { edges { node { id } } } }', {}, viewer);
    expect(listed.body.data?.auditEvents ?? null).toBeNull();
    expect(errorOf(listed)?.extensions?.code).toBe('FORBIDDEN');
    for (const query of [
      'query($id: ID!) { node(id: $id) { id ... on AuditEvent { action actor } } }',
      'query($id: ID!) { nodes(ids: [$id]) { id ... on AuditEvent { action } } }',
    ]) {
      const reply = await gql(query, { id: eventId }, viewer);
      expect(JSON.stringify(reply.body.data)).not.toContain('BATCH_APPROVE');
      expect(JSON.stringify(reply.body.data)).not.toContain('key:t');
      expect(errorOf(reply)?.extensions?.code).toBe('FORBIDDEN');
    }
    // What a viewer may read directly, it may read by id.
    const batch = await gql('query($id: ID!) { node(id: $id) { id ... on Batch { name } } }', { id: batchIds[1] }, viewer);
    expect(batch.body.data.node.id).toBe(batchIds[1]);
    const event = await gql('query($id: ID!) { node(id: $id) { id ... on AuditEvent { action } } }', { id: eventId });
    expect(event.body.data.node).toEqual({ id: eventId, action: 'BATCH_APPROVE' });
  });

  it('needs a key for node as for every read', async () => {
    const reply = await gw.gql('query($id: ID!) { node(id: $id) { id } }', { id: batchIds[0] });
    expect(reply.status).toBe(401);
  });
});

/** Each connection: how to ask for it with ARGS, and the natural key of a node. */
const connections: Array<{ name: string; query: () => string; key: string; pick: (data: any) => any; lastNeedsBefore?: boolean }> = [
  { name: 'payments', query: () => `{ c: payments(ARGS) { PAGE } }`, key: 'paymentId', pick: (d) => d.c, lastNeedsBefore: true },
  { name: 'searchPayments', query: () => `{ c: searchPayments(ARGS) { PAGE } }`, key: 'paymentId', pick: (d) => d.c },
  { name: 'batches', query: () => `{ c: batches(ARGS) { PAGE } }`, key: 'id', pick: (d) => d.c },
  { name: 'items', query: () => `{ batch(id: "${batchIds[0]}") { c: items(ARGS) { PAGE } } }`, key: 'line', pick: (d) => d.batch.c },
  { name: 'auditEvents', query: () => `{ c: auditEvents(ARGS) { PAGE } }`, key: 'id', pick: (d) => d.c },
  { name: 'reconciliationRuns', query: () => `{ c: reconciliationRuns(ARGS) { PAGE } }`, key: 'id', pick: (d) => d.c },
  {
    name: 'discrepancies',
    query: () => `{ reconciliationRun(id: "${runIds[0]}") { c: discrepancies(ARGS) { PAGE } } }`,
    key: 'discrepancyId',
    pick: (d) => d.reconciliationRun.c,
  },
];

interface Page {
  keys: unknown[];
  cursors: string[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

async function page(connection: (typeof connections)[number], args: Record<string, unknown>) {
  const text = Object.entries(args)
    .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
    .join(', ');
  const query = connection
    .query()
    .replace('(ARGS)', text === '' ? '' : `(${text})`)
    .replace('PAGE', `pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { ${connection.key} } }`);
  const reply = await gql(query);
  if (reply.body.errors !== undefined) return { reply, page: undefined };
  const c = connection.pick(reply.body.data);
  const result: Page = {
    keys: c.edges.map((e: any) => e.node[connection.key]),
    cursors: c.edges.map((e: any) => e.cursor),
    pageInfo: c.pageInfo,
  };
  return { reply, page: result };
}

describe.each(connections)('$name pages both ways', (connection) => {
  it('forwards with first/after and backwards with last/before over the same rows', async () => {
    const all = (await page(connection, { first: 99 })).page!;
    expect(all.keys.length).toBeGreaterThanOrEqual(3);

    const forward: unknown[] = [];
    let after: string | undefined;
    for (;;) {
      const next = (await page(connection, after === undefined ? { first: 2 } : { first: 2, after })).page!;
      forward.push(...next.keys);
      expect(next.pageInfo.hasPreviousPage).toBe(after !== undefined);
      if (!next.pageInfo.hasNextPage) break;
      after = next.pageInfo.endCursor!;
    }
    expect(forward).toEqual(all.keys);

    // Backwards from the end: "last" alone where the list's end can be found, else from the last row's cursor.
    const backward: unknown[] = connection.lastNeedsBefore === true ? [all.keys.at(-1)] : [];
    let before: string | undefined = connection.lastNeedsBefore === true ? all.cursors.at(-1) : undefined;
    for (;;) {
      const previous = (await page(connection, before === undefined ? { last: 2 } : { last: 2, before })).page!;
      expect(previous.keys.length).toBeLessThanOrEqual(2);
      backward.unshift(...previous.keys);
      expect(previous.pageInfo.hasNextPage).toBe(before !== undefined);
      if (!previous.pageInfo.hasPreviousPage) break;
      before = previous.pageInfo.startCursor!;
    }
    expect(backward).toEqual(all.keys);
  });

  it('names the argument it refuses', async () => {
    for (const [args, argument] of [
      [{ after: 'not-a-cursor' }, 'after'],
      [{ last: 1, before: 'not-a-cursor' }, 'before'],
      [{ first: -1 }, 'first'],
      [{ last: -1 }, 'last'],
    ] as const) {
      const { reply } = await page(connection, args);
      expect(errorOf(reply)?.message, JSON.stringify(args)).toMatch(new RegExp(`^${argument} `));
      expect(errorOf(reply)?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    }
    if (connection.lastNeedsBefore === true) {
      const { reply } = await page(connection, { last: 2 });
      expect(errorOf(reply)).toMatchObject({ message: expect.stringMatching(/^last needs before/), extensions: { argument: 'last' } });
    }
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/batch/run-command.ts';
import { freePort } from '../support/gateway-process.ts';
import { loadGatewayConfig } from '../../src/config/env.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createLogger } from '../../src/log/logger.ts';
import { testWorker } from '../support/batch.ts';
import { TEST_DATA_KEY } from '../support/card-data.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, apiKeysEnv } from '../support/keys.ts';
import { uploadBatch } from '../support/batch-graphql.ts';

const EVENT_FIELDS = 'action actor role batchId paymentId detail { key value } requestId at';
/** The detail as GraphQL gives it: key-value pairs sorted by key. */
const kv = (detail: Record<string, string>) => Object.entries(detail).map(([key, value]) => ({ key, value }));
const auditQuery = `query($first: Int, $after: String, $batchId: ID, $paymentId: ID, $action: AuditAction, $from: DateTime, $to: DateTime) {
  auditEvents(first: $first, after: $after, batchId: $batchId, paymentId: $paymentId, action: $action, from: $from, to: $to) {
    edges { cursor node { ${EVENT_FIELDS} } }
    pageInfo { hasNextPage endCursor }
  } }`;

describe.each(testDatabaseKinds())('audit trail on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    // No worker in the gateway: an approved batch stays RUNNING until the test pays it.
    gw = await startTestGateway({
      database: kind,
      env: { GATEWAY_API_KEYS: apiKeysEnv({ op: 'operator', ap: 'approver', v: 'viewer', ad: 'admin' }), WORKER_IN_PROCESS: 'false' },
      sandbox: { inProgressMs: 20 },
    });
  });
  afterAll(() => gw?.close());

  /** A GraphQL request over real HTTP with a request id of the test's choosing. */
  async function mutate(key: string, query: string, requestId: string) {
    const response = await request(`${gw.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey(key)}`, 'x-request-id': requestId },
      body: JSON.stringify({ query }),
    });
    return (await response.body.json()) as { data?: any; errors?: Array<{ message: string; extensions?: any }> };
  }

  async function upload(key: string, csv: string, requestId: string, force = true): Promise<string> {
    return (await uploadBatch(gw.gateway.url, csv, { key: apiKey(key), variables: { force }, headers: { 'x-request-id': requestId } })).id;
  }

  const events = async (variables: Record<string, unknown>, key = 'ad') => {
    const reply = await gw.gql(auditQuery, variables, apiKey(key));
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.auditEvents as {
      edges: Array<{ cursor: string; node: any }>;
      pageInfo: { hasNextPage: boolean; endCursor: string };
    };
  };
  const statusOf = async (batchId: string) => (await gw.services().batches.get(batchId)).status;

  let paidBatch: string;

  it('records a forced import with who asked and the request id; an ordinary import is not recorded', async () => {
    paidBatch = await upload(
      'op',
      'provider,amount,account\nbank-card-token,10.00,token_audit_paid\nbank-card-token,12.00,token_execute_failed\n',
      'rid-import',
    );
    const found = await events({ batchId: paidBatch });
    expect(found.edges.map((e) => e.node)).toEqual([
      {
        action: 'BATCH_IMPORT_FORCED',
        actor: expect.stringMatching(/^key:[0-9a-f]{12}$/),
        role: 'OPERATOR',
        batchId: paidBatch,
        paymentId: null,
        detail: kv({ fileName: 'payroll.csv', rows: '2', status: 'VALIDATED' }),
        requestId: 'rid-import',
        at: expect.any(String),
      },
    ]);
    const plain = await upload(
      'op',
      `provider,amount,account\nbank-card-token,13.${String(Date.now() % 100).padStart(2, '0')},token_success\n`,
      'rid-plain',
      false,
    );
    expect((await events({ batchId: plain })).edges).toEqual([]);
  });

  it('records an approval in the same transaction, and nothing for a refused one', async () => {
    const refused = await mutate('op', `mutation { cancelBatch(id: "nope") { __typename } }`, 'rid-refused');
    expect(refused.data?.cancelBatch?.__typename).toBe('BatchError');
    const approved = await mutate('ap', `mutation { approveBatch(id: "${paidBatch}") { __typename } }`, 'rid-approve');
    expect(approved.data.approveBatch.__typename).toBe('ApproveBatchSuccess');
    const again = await mutate(
      'ap',
      `mutation { approveBatch(id: "${paidBatch}") { __typename ... on BatchError { code } } }`,
      'rid-again',
    );
    expect(again.data.approveBatch.__typename).toBe('BatchError');
    const found = await events({ batchId: paidBatch, action: 'BATCH_APPROVE' });
    expect(found.edges.map((e) => e.node)).toEqual([
      expect.objectContaining({
        action: 'BATCH_APPROVE',
        role: 'APPROVER',
        requestId: 'rid-approve',
        detail: expect.arrayContaining(
          kv({
            balanceChecked: 'true',
            forced: 'true',
            from: 'VALIDATED',
            heldIncluded: '0',
            heldRows: '0',
            includeHeld: 'false',
            validRowsOnly: 'false',
          }),
        ),
      }),
    ]);
    expect((await events({ action: 'BATCH_CANCEL' })).edges).toEqual([]);
  });

  it('records a retry of failed rows', async () => {
    const worker = testWorker(gw);
    await worker.drain(async () => (await statusOf(paidBatch)) !== 'RUNNING', paidBatch);
    await worker.stop();
    expect(await statusOf(paidBatch)).toBe('COMPLETED_WITH_FAILURES');
    // Not by the uploader ('op'): paying rows again needs a second person (docs/api/graphql/access.md).
    const refused = await mutate(
      'op',
      `mutation { retryFailedItems(id: "${paidBatch}") { __typename ... on BatchError { code } } }`,
      'rid-retry-same',
    );
    expect(refused.data.retryFailedItems).toEqual({ __typename: 'BatchError', code: 'SECOND_PERSON_REQUIRED' });
    const retried = await mutate('ad', `mutation { retryFailedItems(id: "${paidBatch}") { __typename } }`, 'rid-retry');
    expect(retried.data.retryFailedItems.__typename).toBe('RetryFailedItemsSuccess');
    const batch = await gw.services().batches.get(paidBatch);
    const found = await events({ batchId: paidBatch, action: 'BATCH_RETRY' });
    expect(found.edges.map((e) => e.node)).toEqual([
      expect.objectContaining({
        role: 'ADMIN',
        requestId: 'rid-retry',
        detail: expect.arrayContaining(kv({ rows: '1', uploadedBy: batch.uploadedBy!, approvedBy: batch.approvedBy! })),
      }),
    ]);
  });

  it('records the discard of a batch that never ran', async () => {
    const batchId = await upload('op', 'provider,amount,account\nbank-card-token,14.00,token_audit_14\n', 'rid-import-2');
    const discarded = await mutate('op', `mutation { cancelBatch(id: "${batchId}") { __typename } }`, 'rid-discard');
    expect(discarded.data.cancelBatch.__typename).toBe('CancelBatchSuccess');
    const found = await events({ batchId, action: 'BATCH_DISCARD' });
    expect(found.edges.map((e) => e.node)).toEqual([
      expect.objectContaining({
        role: 'OPERATOR',
        requestId: 'rid-discard',
        detail: kv({ from: 'VALIDATED', rowsCancelled: '1', rowsCreatedNotExecuted: '0' }),
      }),
    ]);
  });

  it('records the cancel of a running batch', async () => {
    const batchId = await upload(
      'op',
      'provider,amount,account\nbank-card-token,15.00,token_audit_15\nbank-card-token,16.00,token_audit_16\n',
      'rid-import-3',
    );
    expect(
      (await mutate('ap', `mutation { approveBatch(id: "${batchId}") { __typename } }`, 'rid-approve-3')).data.approveBatch.__typename,
    ).toBe('ApproveBatchSuccess');
    const cancelled = await mutate('ap', `mutation { cancelBatch(id: "${batchId}") { __typename } }`, 'rid-cancel');
    expect(cancelled.data.cancelBatch.__typename).toBe('CancelBatchSuccess');
    const found = await events({ batchId, first: 10 });
    expect(found.edges.map((e) => e.node)).toEqual([
      expect.objectContaining({
        action: 'BATCH_CANCEL',
        role: 'APPROVER',
        requestId: 'rid-cancel',
        detail: kv({ from: 'RUNNING', rowsCancelled: '2', rowsCreatedNotExecuted: '0' }),
      }),
      expect.objectContaining({ action: 'BATCH_APPROVE', requestId: 'rid-approve-3' }),
      expect.objectContaining({ action: 'BATCH_IMPORT_FORCED', requestId: 'rid-import-3' }),
    ]);
  });

  it('pages newest first, filters by action, batch and time', async () => {
    const all = await events({ first: 50 });
    const actions = all.edges.map((e) => e.node.action);
    expect(actions[0]).toBe('BATCH_CANCEL');
    expect(actions).toEqual(
      expect.arrayContaining(['BATCH_IMPORT_FORCED', 'BATCH_APPROVE', 'BATCH_RETRY', 'BATCH_DISCARD', 'BATCH_CANCEL']),
    );
    const firstPage = await events({ first: 2 });
    expect(firstPage.edges).toHaveLength(2);
    expect(firstPage.pageInfo.hasNextPage).toBe(true);
    const rest = await events({ first: 50, after: firstPage.pageInfo.endCursor });
    expect([...firstPage.edges, ...rest.edges].map((e) => e.node)).toEqual(all.edges.map((e) => e.node));
    expect(rest.pageInfo.hasNextPage).toBe(false);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await events({ from: future })).edges).toEqual([]);
    expect((await events({ to: future, action: 'BATCH_RETRY' })).edges).toHaveLength(1);
    expect((await events({ to: '2000-01-01T00:00:00.000Z' })).edges).toEqual([]);
    expect((await events({ paymentId: 'nobody' })).edges).toEqual([]);
  });

  it('is refused to every key but admin', async () => {
    for (const key of ['v', 'op', 'ap']) {
      const reply = await gw.gql(auditQuery, {}, apiKey(key));
      expect(reply.body.data?.auditEvents ?? null, key).toBeNull();
      expect(reply.body.errors?.[0]?.message, key).toBeTruthy();
    }
  });

  it('never stores card data in the detail', async () => {
    const rows = await gw.db.prisma.auditEvent.findMany();
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toMatch(/token_|\d{12,}/);
  });
});

describe('audit trail without keys and from the command line', () => {
  it('names the key-less caller "local"', async () => {
    const gw = await startTestGateway();
    try {
      const batch = await gw.gql(`{ __typename }`);
      expect(batch.status).toBe(200);
      const response = await request(`${gw.gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'rid-local' },
        body: JSON.stringify({ query: 'mutation { cancelBatch(id: "nope") { __typename } }' }),
      });
      await response.body.text();
      const id = (
        await gw.services().importer.import({
          source: (async function* () {
            yield Buffer.from('provider,amount,account\nbank-card-token,15.00,token_audit_cli\n');
          })(),
          force: true,
        })
      ).id;
      const cancelled = await request(`${gw.gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'rid-local' },
        body: JSON.stringify({ query: `mutation { cancelBatch(id: "${id}") { __typename } }` }),
      });
      expect(((await cancelled.body.json()) as any).data.cancelBatch.__typename).toBe('CancelBatchSuccess');
      const reply = await gw.gql(auditQuery, { batchId: id });
      expect(reply.body.data.auditEvents.edges.map((e: any) => e.node)).toEqual([
        expect.objectContaining({ action: 'BATCH_DISCARD', actor: 'local', role: 'ADMIN', requestId: 'rid-local' }),
      ]);
    } finally {
      await gw.close();
    }
  });

  for (const kind of testDatabaseKinds()) {
    it(`records "payout batch run --force", a client of the API, as the local caller's import and approval on ${kind.name}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'payout-audit-'));
      const test = kind.name === 'postgresql' ? await kind.create() : undefined;
      try {
        const file = join(dir, 'payroll.csv');
        await writeFile(file, 'provider,amount,account\nbank-card-token,16.00,token_audit_file\n');
        const config = loadGatewayConfig({
          DATA_DIR: dir,
          PAYOUT_DATA_KEY: TEST_DATA_KEY,
          READ_BACK_INTERVAL_MS: '100000',
          // No gateway answers there: the command serves the API itself (decision 20).
          PORT: String(await freePort()),
          ...(test !== undefined && 'databaseUrl' in test.target ? { DATABASE_URL: test.target.databaseUrl } : {}),
        });
        const code = await runCommand(
          file,
          { yes: true, force: true },
          { config, logger: createLogger({ level: 'silent' }), out: () => {}, json: false, result: async () => {} },
        );
        expect(code).toBe(0);
        const db = test?.db ?? (await openDatabase({ dataDir: dir }));
        try {
          const rows = await db.prisma.auditEvent.findMany({ orderBy: { id: 'asc' } });
          expect(rows.map((r) => [r.action, r.actor, r.role, r.requestId])).toEqual([
            ['batch.import.forced', 'local', 'admin', expect.any(String)],
            ['batch.approve', 'local', 'admin', expect.any(String)],
          ]);
        } finally {
          if (test === undefined) await db.close();
        }
      } finally {
        await test?.drop();
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

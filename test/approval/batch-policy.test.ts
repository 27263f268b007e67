import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testWorker, textSource } from '../support/batch.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';
import { policyFile } from '../support/approval-policy.ts';

/**
 * Issue 30, part 2: approval by policy through GraphQL with several keys. Up to 1,000.00 one
 * approver; above it two; above 10,000.00 two including an admin. The uploader never counts,
 * an approver counts once, approvals lapse, and approvals of other rows do not count.
 */
const POLICY = `{
  "batch": {
    "approvers": 1,
    "byTotal": [
      { "above": "1000.00", "approvers": 2 },
      { "above": "10000.00", "approvers": 2, "including": ["admin"] }
    ]
  },
  "payment": {
    "approvers": 0,
    "byAmount": [
      { "above": "100.00", "approvers": 1 },
      { "above": "1000.00", "approvers": 2, "including": ["admin"] }
    ]
  }
}`;

const KEYS = { olga: 'operator', petr: 'operator', april: 'approver', boris: 'approver', root: 'admin' } as const;
const key = (name: keyof typeof KEYS) => apiKey(name);

const APPROVE = `mutation($id: ID!, $includeHeld: Boolean) { approveBatch(id: $id, ignoreBalance: true, includeHeld: $includeHeld) {
  __typename
  ... on ApproveBatchSuccess { batch { status approvedBy approvals { by role at } approvalsNeeded { count roles required lapsed { by } } } }
  ... on BatchError { code message }
} }`;
const SHOW = `query($id: ID!) { batch(id: $id) { status approvals { by role } approvalsNeeded { count roles required lapsed { by role } lapseDays } } }`;

describe('batch approval by policy, with several keys', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      env: { GATEWAY_API_KEYS: namedApiKeysEnv(KEYS), APPROVAL_POLICY_FILE: policyFile(POLICY), WORKER_IN_PROCESS: 'false' },
    });
  });
  afterAll(() => gw.close());

  let serial = 0;
  /** A payroll of `amounts`, uploaded by olga; amounts of this test alone, so nothing repeats another batch. */
  async function importAmounts(amounts: string[]) {
    serial++;
    const rows = amounts.map((amount, i) => `bank-card-token,${amount},token_success,pol-${serial}-${i}`).join('\n');
    const batch = await gw
      .services()
      .importer.import({ source: textSource(`provider,amount,account,reference\n${rows}\n`), uploadedBy: 'key:olga' });
    return batch.id;
  }
  const approve = async (id: string, who: keyof typeof KEYS, includeHeld?: boolean) =>
    (await gw.gql(APPROVE, { id, includeHeld }, key(who))).body.data.approveBatch;
  const show = async (id: string) => (await gw.gql(SHOW, { id }, key('april'))).body.data.batch;

  it('starts a batch up to the first tier on one approval', async () => {
    const id = await importAmounts(['400.00', '600.00']);
    expect(await show(id)).toMatchObject({ status: 'VALIDATED', approvals: [], approvalsNeeded: { count: 1, roles: [], required: 1 } });
    expect(await approve(id, 'april')).toMatchObject({
      batch: { status: 'RUNNING', approvedBy: 'key:april', approvals: [{ by: 'key:april', role: 'APPROVER' }], approvalsNeeded: null },
    });
  });

  it('needs two distinct approvers above it: the first approval is recorded and says one more is needed, an approver counts once', async () => {
    const id = await importAmounts(['600.00', '600.00']);
    const first = await approve(id, 'april');
    expect(first).toMatchObject({
      __typename: 'ApproveBatchSuccess',
      batch: {
        status: 'VALIDATED',
        approvedBy: null,
        approvals: [{ by: 'key:april', role: 'APPROVER' }],
        approvalsNeeded: { count: 1, roles: [], required: 2 },
      },
    });
    expect((await approve(id, 'april')).batch).toMatchObject({
      status: 'VALIDATED',
      approvals: [{ by: 'key:april' }],
      approvalsNeeded: { count: 1 },
    });
    const second = await approve(id, 'boris');
    expect(second.batch).toMatchObject({
      status: 'RUNNING',
      approvedBy: 'key:boris',
      approvals: [{ by: 'key:april' }, { by: 'key:boris' }],
      approvalsNeeded: null,
    });
    const trail = await gw.db.prisma.auditEvent.findMany({ where: { batchId: id, action: 'batch.approve' }, orderBy: { id: 'asc' } });
    expect(trail.map((e) => [e.actor, (e.detail as Record<string, unknown>).policyMet])).toEqual([
      ['key:april', false],
      ['key:april', false],
      ['key:boris', true],
    ]);
  });

  it('needs an admin among the two above the top tier', async () => {
    const id = await importAmounts(['6000.00', '6000.00']);
    await approve(id, 'april');
    expect((await approve(id, 'boris')).batch).toMatchObject({
      status: 'VALIDATED',
      approvalsNeeded: { count: 1, roles: ['ADMIN'], required: 2 },
    });
    expect((await approve(id, 'root')).batch).toMatchObject({ status: 'RUNNING', approvedBy: 'key:root' });
  });

  it('never counts the uploader: an admin who uploaded is refused as today', async () => {
    const id = await importAmounts(['10.00']);
    serial++;
    const byRoot = await gw.services().importer.import({
      source: textSource(`provider,amount,account,reference\nbank-card-token,20.00,token_success,pol-root-${serial}\n`),
      uploadedBy: 'key:root',
    });
    expect(await approve(byRoot.id, 'root')).toMatchObject({ __typename: 'BatchError', code: 'BATCH_SAME_PERSON' });
    expect(await show(byRoot.id)).toMatchObject({ status: 'VALIDATED', approvals: [], approvalsNeeded: { count: 1 } });
    expect((await approve(id, 'april')).batch.status).toBe('RUNNING');
  });

  it('lets approvals lapse after APPROVAL_LAPSE_DAYS: they no longer count and the batch says so', async () => {
    const id = await importAmounts(['700.00', '700.00']);
    await approve(id, 'april');
    // Eight days pass for april's approval (the table's own clock column, moved back).
    await gw.db.prisma.approval.updateMany({ where: { batchId: id }, data: { at: new Date(Date.now() - 8 * 24 * 3600_000) } });
    expect(await show(id)).toMatchObject({
      approvals: [],
      approvalsNeeded: { count: 2, lapsed: [{ by: 'key:april', role: 'APPROVER' }], lapseDays: 7 },
    });
    expect((await approve(id, 'boris')).batch).toMatchObject({ status: 'VALIDATED', approvalsNeeded: { count: 1 } });
    expect((await approve(id, 'april')).batch).toMatchObject({ status: 'RUNNING' });
  });

  it('needs the policy again when the rows to pay change: an approval without held rows does not count for one with them', async () => {
    // The second row repeats the first (the same payee and amount, no reference): held.
    const text =
      'provider,amount,account\nbank-card-token,600.01,token_success\nbank-card-token,600.01,token_success\nbank-card-token,300.00,token_success\n';
    const { id } = await gw.services().importer.import({ source: textSource(text), uploadedBy: 'key:olga' });
    expect((await gw.gql(`{ batch(id: "${id}") { heldCount } }`, {}, key('april'))).body.data.batch.heldCount).toBe(1);
    // 900.01 without the held row: one approver would do, but april asks for it with the held row (1,500.02): two.
    expect((await approve(id, 'april', true)).batch).toMatchObject({ status: 'VALIDATED', approvalsNeeded: { count: 1, required: 2 } });
    // boris approves the rows without it: another choice than april's, refused with hers in words (issue 38), nothing recorded.
    const refused = await approve(id, 'boris', false);
    expect(refused).toMatchObject({ __typename: 'BatchError', code: 'BATCH_APPROVAL_DIFFERS' });
    expect(refused.message).toContain(
      'key:april approved paying 3 rows, 1,500.02 RUB, as soon as the approvals are complete, held repeats included; you chose paying 2 rows, 900.01 RUB',
    );
    // As a new round april's approval stops counting, and one approver suffices for 900.01.
    const NEW_ROUND = `mutation($id: ID!) { approveBatch(id: $id, ignoreBalance: true, newRound: true) { ... on ApproveBatchSuccess { batch { status approvedBy approvals { by } } } } }`;
    const round = (await gw.gql(NEW_ROUND, { id }, key('boris'))).body.data.approveBatch;
    expect(round.batch).toMatchObject({ status: 'RUNNING', approvedBy: 'key:boris', approvals: [{ by: 'key:boris' }] });
    const trail = await gw.db.prisma.auditEvent.findMany({ where: { batchId: id, action: 'batch.approve' }, orderBy: { id: 'asc' } });
    expect(trail.map((e) => (e.detail as Record<string, unknown>).replaces ?? null)).toEqual([null, ['key:april']]);
  });

  it('needs the policy again to pay failed rows above a tier again: the retry is an approval of those rows', async () => {
    const RETRY = `mutation($id: ID!) { retryFailedItems(id: $id) { __typename ... on BatchError { code message } ... on RetryFailedItemsSuccess { batch { status } } } }`;
    const text = 'provider,amount,account\nbank-card-token,600.02,token_execute_failed\nbank-card-token,600.03,token_execute_failed\n';
    const { id } = await gw.services().importer.import({ source: textSource(text), uploadedBy: 'key:olga' });
    await approve(id, 'april');
    expect((await approve(id, 'root')).batch.status).toBe('RUNNING');
    await testWorker(gw).drain(
      async () => (await gw.db.prisma.batch.findUniqueOrThrow({ where: { id } })).status === 'COMPLETED_WITH_FAILURES',
    );

    // 1,200.05 of failed rows: above the first tier, two people. petr's retry is one.
    const first = (await gw.gql(RETRY, { id }, key('petr'))).body.data.retryFailedItems;
    expect(first).toMatchObject({ __typename: 'BatchError', code: 'SECOND_PERSON_REQUIRED' });
    expect(first.message).toMatch(/1,200\.05 RUB.*1 of 2 approvals so far: it needs 1 more approver$/);
    expect((await gw.db.prisma.batch.findUniqueOrThrow({ where: { id } })).status).toBe('COMPLETED_WITH_FAILURES');
    // Asking again is the same person.
    expect((await gw.gql(RETRY, { id }, key('petr'))).body.data.retryFailedItems.message).toMatch(/1 of 2 approvals so far/);
    expect((await gw.gql(RETRY, { id }, key('root'))).body.data.retryFailedItems).toMatchObject({
      __typename: 'RetryFailedItemsSuccess',
      batch: { status: 'RUNNING' },
    });
  });
});

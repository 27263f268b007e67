import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCard } from '../../samples/test-card.ts';
import { textSource } from '../support/batch.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';
import { policyFile } from '../support/approval-policy.ts';

/**
 * Issue 38, section 1: an approval means what its approver chose. Under a two-approver policy
 * April approves with a time to pay and the row held for a changed account included; the
 * second approver (a) agrees, (b) approves plainly, (c) chooses otherwise. Nothing leaves
 * before the agreed time, no row goes that an approver did not agree to, and GraphQL says
 * whose choice stands. The gateway's own worker pays (what is not scheduled goes at once).
 */
const KEYS = { olga: 'operator', april: 'approver', boris: 'approver', root: 'admin' } as const;
const key = (name: keyof typeof KEYS) => apiKey(name);

const APPROVE = `mutation($id: ID!, $payAt: DateTime, $changed: Boolean, $agree: Boolean, $newRound: Boolean) {
  approveBatch(id: $id, ignoreBalance: true, payAt: $payAt, includeChangedAccounts: $changed, agree: $agree, newRound: $newRound) {
    __typename
    ... on ApproveBatchSuccess { batch { status payAt approvedBy approvals { by payAt includeChangedAccounts } } }
    ... on BatchError { code message }
  } }`;
const SHOW = `query($id: ID!) { batch(id: $id) {
  status payAt approvals { by payAt }
  approvalsNeeded { count required }
  pendingApproval { approvals { by } payAt includeHeld includeChangedAccounts rows amount summary }
  items(first: 10) { edges { node { line status payee } } } } }`;

describe('an approval keeps what its approver chose', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      sandbox: { inProgressMs: 20 },
      env: {
        GATEWAY_API_KEYS: namedApiKeysEnv(KEYS),
        APPROVAL_POLICY_FILE: policyFile('{ "batch": { "approvers": 2 }, "payment": { "approvers": 0 } }'),
      },
    });
    // Last month: every payee paid to card 1..4, so a new card this month is a changed account.
    const october = await importPayroll(
      'OCT',
      ['A', 'B', 'C', 'D', 'E'].map((p, i) => [p, testCard(i + 1)]),
    );
    await approve(october, 'april', {});
    expect((await approve(october, 'boris', { agree: true })).__typename).toBe('ApproveBatchSuccess');
    await eventually(async () => expect((await show(october)).status).toBe('COMPLETED'), 60_000);
  });
  afterAll(() => gw.close());

  let serial = 0;
  /** One row per payee, 1000.00 each, plus a known payee's row (the payee A) at 500.00. */
  async function importPayroll(month: string, rows: Array<[string, string]>): Promise<string> {
    serial++;
    const lines = rows.map(
      ([payee, card], i) => `${month}-${serial}-${i},${payee},bank-card-russia,${i === 0 ? '500.00' : '1000.00'},${card},IVAN,IVANOV`,
    );
    const text = `reference,payee,provider,amount,pan,cardholder_name,cardholder_lastname\n${lines.join('\n')}\n`;
    return (await gw.services().importer.import({ source: textSource(text), uploadedBy: 'key:olga' })).id;
  }
  /** This month: payee A as before, the payee given on a new card (held: account changed). */
  const changedPayroll = (payee: string, newCard: number) =>
    importPayroll('NOV', [
      ['A', testCard(1)],
      [payee, testCard(newCard)],
    ]);
  const approve = async (
    id: string,
    who: keyof typeof KEYS,
    args: { payAt?: string; changed?: boolean; agree?: boolean; newRound?: boolean },
  ) => (await gw.gql(APPROVE, { id, ...args }, key(who))).body.data.approveBatch;
  const show = async (id: string) => (await gw.gql(SHOW, { id }, key('root'))).body.data.batch;
  const statuses = async (id: string) =>
    (await show(id)).items.edges.map((e: { node: { payee: string; status: string } }) => `${e.node.payee}:${e.node.status}`);
  const sentUpstream = async (id: string) => gw.db.prisma.payment.count({ where: { paymentId: { startsWith: `${id}-` } } });
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString().replace(/\.\d+Z$/, '.000Z');

  it('(a) the second approver agrees: it waits for April’s time, with the changed row she included', async () => {
    const id = await changedPayroll('B', 12);
    const payAt = inHours(3);
    const first = await approve(id, 'april', { payAt, changed: true });
    expect(first).toMatchObject({
      __typename: 'ApproveBatchSuccess',
      batch: { status: 'VALIDATED', approvals: [{ by: 'key:april', payAt, includeChangedAccounts: true }] },
    });
    // What the second approver is shown: April's whole choice, not "0 of 1" nor the latest flags.
    const pending = (await show(id)).pendingApproval;
    expect(pending).toMatchObject({
      approvals: [{ by: 'key:april' }],
      payAt,
      includeChangedAccounts: true,
      includeHeld: false,
      rows: 2,
      amount: '1500.00',
    });
    expect(pending.summary).toMatch(
      /^key:april approved paying 2 rows, 1,500.00 RUB, at \d+ \w+ \d{4}, \d\d:\d\d UTC, rows held for a changed account included$/,
    );

    const second = await approve(id, 'boris', { agree: true });
    expect(second).toMatchObject({
      batch: {
        status: 'SCHEDULED',
        payAt,
        approvedBy: 'key:boris',
        approvals: [{ by: 'key:april' }, { by: 'key:boris', payAt, includeChangedAccounts: true }],
      },
    });
    expect(await statuses(id)).toEqual(['A:PENDING', 'B:PENDING']);
    expect(await sentUpstream(id)).toBe(0);
  });

  it('(b) the second approver approves plainly: refused in words naming April’s choice; nothing recorded, nothing sent', async () => {
    const id = await changedPayroll('C', 13);
    const payAt = inHours(2);
    await approve(id, 'april', { payAt, changed: true });
    const plain = await approve(id, 'boris', {});
    expect(plain).toMatchObject({ __typename: 'BatchError', code: 'BATCH_APPROVAL_DIFFERS' });
    expect(plain.message).toMatch(
      /^key:april approved paying 2 rows, 1,500.00 RUB, at .* UTC, rows held for a changed account included; you chose paying 1 row, 500.00 RUB, as soon as the approvals are complete\./,
    );
    expect(await show(id)).toMatchObject({
      status: 'VALIDATED',
      approvals: [{ by: 'key:april' }],
      pendingApproval: { payAt, includeChangedAccounts: true },
    });
    expect(await gw.db.prisma.approval.count({ where: { batchId: id, actor: 'key:boris' } })).toBe(0);
    // Approving April's time but not her rows is another choice too.
    expect(await approve(id, 'boris', { payAt })).toMatchObject({ code: 'BATCH_APPROVAL_DIFFERS' });
    expect(await sentUpstream(id)).toBe(0);
  });

  it('(c) the second approver chooses otherwise: a new round replaces April’s approval, audited; only the rows agreed go', async () => {
    const id = await changedPayroll('D', 14);
    await approve(id, 'april', { payAt: inHours(2), changed: true });
    const round = await approve(id, 'boris', { newRound: true });
    expect(round).toMatchObject({
      batch: { status: 'VALIDATED', approvals: [{ by: 'key:boris', payAt: null, includeChangedAccounts: false }] },
    });
    expect((await show(id)).pendingApproval).toMatchObject({
      approvals: [{ by: 'key:boris' }],
      payAt: null,
      includeChangedAccounts: false,
      rows: 1,
      amount: '500.00',
    });
    const trail = await gw.db.prisma.auditEvent.findMany({ where: { batchId: id, action: 'batch.approve' }, orderBy: { id: 'asc' } });
    expect(trail.map((e) => [e.actor, (e.detail as Record<string, unknown>).replaces ?? null])).toEqual([
      ['key:april', null],
      ['key:boris', ['key:april']],
    ]);
    // April's earlier approval does not ride on Boris's: the policy still needs a second person.
    expect((await show(id)).approvalsNeeded).toMatchObject({ count: 1, required: 2 });
    expect(await approve(id, 'root', { agree: true })).toMatchObject({ batch: { status: 'RUNNING', approvedBy: 'key:root', payAt: null } });
    await eventually(async () => expect(await statuses(id)).toEqual(['A:COMPLETED', 'D:DUPLICATE']), 60_000);
  });

  it('a time agreed that has come by the second approval starts at once; agree with nothing pending is refused', async () => {
    expect(await approve(await changedPayroll('E', 15), 'boris', { agree: true })).toMatchObject({ code: 'BATCH_NOTHING_TO_AGREE' });
    const id = await changedPayroll('E', 16);
    await approve(id, 'april', { payAt: inHours(1) });
    // An hour passes (the table's own column moved back, as the lapse tests do).
    await gw.db.prisma.approval.updateMany({ where: { batchId: id }, data: { payAt: new Date(Date.now() - 60_000) } });
    expect(await approve(id, 'boris', { agree: true })).toMatchObject({ batch: { status: 'RUNNING', approvedBy: 'key:boris' } });
  });

  it('a batch two people scheduled cannot be moved earlier by one of them; later is fine', async () => {
    const RESCHEDULE = `mutation($id: ID!, $payAt: DateTime!) { rescheduleBatch(id: $id, payAt: $payAt) { __typename ... on BatchError { code message } } }`;
    const id = await importPayroll('DEC', [['A', testCard(1)]]);
    await approve(id, 'april', { payAt: inHours(4) });
    await approve(id, 'boris', { agree: true });
    const earlier = (await gw.gql(RESCHEDULE, { id, payAt: inHours(1) }, key('root'))).body.data.rescheduleBatch;
    expect(earlier).toMatchObject({ code: 'BATCH_EARLIER_NEEDS_APPROVALS' });
    expect(earlier.message).toMatch(/^key:april and key:boris approved paying at /);
    expect((await gw.gql(RESCHEDULE, { id, payAt: inHours(6) }, key('root'))).body.data.rescheduleBatch.__typename).toBe(
      'RescheduleBatchSuccess',
    );
  });
});

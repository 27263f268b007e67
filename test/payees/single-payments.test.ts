import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCard } from '../../samples/test-card.ts';
import { systemActor } from '../../src/audit/audit.ts';
import { utcDay } from '../../src/money/readable-text.ts';
import { policyFile } from '../support/approval-policy.ts';
import { textSource } from '../support/batch.ts';
import { testDatabaseKinds, type TestDatabaseKind } from '../support/database.ts';
import { expectDocumentedShape, startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { apiKey, namedApiKeysEnv } from '../support/keys.ts';

/**
 * Issue 30, part 4, the payee half: a single payment (createPayment/executePayment) that
 * names its payee is marked as batch rows are (new payee, known, account changed since the
 * day last paid), is not executed to a changed account unless the executor includes it, and
 * once paid is the account remembered for its payee, for batches and single payments alike.
 */
const KEYS = { olga: 'operator', petr: 'operator', april: 'approver' } as const;
// Single payments: the creator executes alone; batches: one approver other than the uploader.
const POLICY = '{ "payment": { "approvers": 0, "byAmount": [] } }';

const PAYMENT = 'paymentId trackingStatus payee payeeMark { kind lastPaidAt }';
const CREATE = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) {
  __typename ... on CreatePaymentSuccess { payment { ${PAYMENT} } } ... on PaymentRefusedError { code message paymentId }
  ... on InputError { message fieldErrors { path message } }
} }`;
const EXECUTE = `mutation($id: ID!, $include: Boolean) { executePayment(paymentId: $id, includeChangedAccount: $include) {
  __typename ... on ExecutePaymentSuccess { payment { ${PAYMENT} } } ... on PaymentRefusedError { code message paymentId }
} }`;
const READ = `query($id: ID!) { payment(paymentId: $id) { ${PAYMENT} } }`;

interface Rig {
  gw: TestGateway;
  /** An HR system subscribed to single payments' outbound events. */
  receiver: EventReceiver;
  serial: number;
  close(): Promise<void>;
}

async function rig(kind: TestDatabaseKind, env: Record<string, string> = {}): Promise<Rig> {
  const receiver = await startEventReceiver();
  const gw = await startTestGateway({
    database: kind,
    sandbox: { inProgressMs: 20 },
    env: {
      GATEWAY_API_KEYS: namedApiKeysEnv(KEYS),
      APPROVAL_POLICY_FILE: policyFile(POLICY),
      EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true',
      EVENT_POLL_MS: '20',
      ...env,
    },
  });
  const { secret } = await gw
    .services()
    .eventSubscriptions.create({ url: receiver.url, types: ['payment.paid', 'payment.failed'], description: 'HR' }, systemActor);
  receiver.secrets.push(secret);
  return {
    gw,
    receiver,
    serial: 0,
    async close() {
      await gw.close();
      await receiver.close();
    },
  };
}

/** createPayment by `who` paying `card` to `payee`; the reply's union member. */
async function create(
  r: Rig,
  payee: string | undefined,
  card: string,
  options: { execute?: boolean; includeChangedAccount?: boolean; who?: keyof typeof KEYS } = {},
) {
  const paymentId = `single-${++r.serial}`;
  const input = {
    paymentId,
    amount: '150.00',
    recipient: { bankCardRussia: { pan: card } },
    ...(payee === undefined ? {} : { payee }),
    execute: options.execute ?? false,
    ...(options.includeChangedAccount === undefined ? {} : { includeChangedAccount: options.includeChangedAccount }),
  };
  const reply = await r.gw.gql(CREATE, { input }, apiKey(options.who ?? 'olga'));
  expect(reply.body.errors).toBeUndefined();
  return { paymentId, reply: reply.body.data.createPayment };
}

async function execute(r: Rig, paymentId: string, who: keyof typeof KEYS, include?: boolean) {
  const reply = await r.gw.gql(EXECUTE, { id: paymentId, include }, apiKey(who));
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.executePayment;
}

async function paid(r: Rig, paymentId: string) {
  await eventually(async () => expect((await r.gw.services().tracker.find(paymentId))?.status).toBe('COMPLETED'));
  return r.gw.db.prisma.payeeAccount.findUniqueOrThrow({ where: { payeeId: (await r.gw.services().tracker.find(paymentId))!.payeeId! } });
}

async function markOf(r: Rig, paymentId: string) {
  return (await r.gw.gql(READ, { id: paymentId }, apiKey('olga'))).body.data.payment;
}

describe.each(testDatabaseKinds())('single payments with a payee on $name', (kind) => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig(kind);
  });
  afterAll(() => r.close());

  it('refuses a bad payee id, naming the field', async () => {
    for (const [payee, words] of [
      ['E 1', /is not a payee id/],
      ['E'.repeat(37), /longer than 36 characters/],
      [testCard(9), /card number/],
    ] as const) {
      const { reply } = await create(r, payee, testCard(1));
      expect(reply.__typename).toBe('InputError');
      expect(reply.fieldErrors).toEqual([{ path: ['input', 'payee'], message: expect.stringMatching(words) }]);
      expect(JSON.stringify(reply)).not.toContain(testCard(9));
    }
    expect(await r.gw.db.prisma.payment.count()).toBe(0);
  });

  it('marks a new payee, remembers the account once paid, and marks the next payment to it known', async () => {
    const first = await create(r, 'E-1', testCard(1), { execute: true });
    expect(first.reply).toMatchObject({
      __typename: 'CreatePaymentSuccess',
      payment: { payee: 'E-1', payeeMark: { kind: 'NEW_PAYEE', lastPaidAt: null } },
    });
    const remembered = await paid(r, first.paymentId);
    expect(remembered).toMatchObject({ payeeId: 'E-1', lastPaymentId: first.paymentId });

    const second = await create(r, 'E-1', testCard(1));
    expect(second.reply.payment).toMatchObject({
      payee: 'E-1',
      payeeMark: { kind: 'KNOWN', lastPaidAt: remembered.lastPaidAt.toISOString() },
    });
    // A payment without a payee is marked as before: not at all.
    const plain = await create(r, undefined, testCard(1));
    expect(plain.reply.payment).toMatchObject({ payee: null, payeeMark: null });
    // Neither paid: what is remembered is still the first payment.
    expect(await r.gw.db.prisma.payeeAccount.findUniqueOrThrow({ where: { payeeId: 'E-1' } })).toEqual(remembered);
  });

  it('holds a payment to a changed card until the executor includes it, then remembers the new card', async () => {
    const first = await create(r, 'E-2', testCard(2), { execute: true });
    const before = await paid(r, first.paymentId);
    const day = utcDay(before.lastPaidAt);

    const changed = await create(r, 'E-2', testCard(3), { execute: true });
    expect(changed.reply).toMatchObject({ __typename: 'PaymentRefusedError', code: 'PAYEE_ACCOUNT_CHANGED', paymentId: changed.paymentId });
    expect(changed.reply.message).toContain('payee E-2');
    expect(changed.reply.message).toContain(`last paid on ${day} to another account`);
    expect(changed.reply.message).toContain('includeChangedAccount: true');
    expect(changed.reply.message).not.toMatch(/\d{4}-\d{2}-\d{2}|ACCOUNT_CHANGED/);
    expect(await markOf(r, changed.paymentId)).toMatchObject({
      trackingStatus: 'READY',
      payee: 'E-2',
      payeeMark: { kind: 'ACCOUNT_CHANGED', lastPaidAt: before.lastPaidAt.toISOString() },
    });

    const again = await execute(r, changed.paymentId, 'olga');
    expect(again).toMatchObject({ __typename: 'PaymentRefusedError', code: 'PAYEE_ACCOUNT_CHANGED' });
    expect(await execute(r, changed.paymentId, 'olga', false)).toMatchObject({ code: 'PAYEE_ACCOUNT_CHANGED' });
    expect(await r.gw.sb.effects(changed.paymentId)).toMatchObject({ status: 'READY', executeCalls: 0 });

    expect(await execute(r, changed.paymentId, 'olga', true)).toMatchObject({ __typename: 'ExecutePaymentSuccess' });
    const after = await paid(r, changed.paymentId);
    expect(after.lastPaymentId).toBe(changed.paymentId);
    expect(after.accountKey).not.toBe(before.accountKey);
    expect(after.lastPaidAt.getTime()).toBeGreaterThanOrEqual(before.lastPaidAt.getTime());
    expect(await r.gw.sb.effects(changed.paymentId)).toMatchObject({ executeCalls: 1 });

    // The old card is now the changed one; in one call with the argument it is paid at once.
    const back = await create(r, 'E-2', testCard(2), { execute: true, includeChangedAccount: true });
    expect(back.reply).toMatchObject({
      __typename: 'CreatePaymentSuccess',
      payment: { payeeMark: { kind: 'ACCOUNT_CHANGED', lastPaidAt: after.lastPaidAt.toISOString() } },
    });

    // Each execute is audited, the refused ones with their code; no card number anywhere.
    const trail = await r.gw.db.prisma.auditEvent.findMany({
      where: { paymentId: changed.paymentId, action: 'payment.execute' },
      orderBy: { id: 'asc' },
    });
    expect(trail.map((e) => e.detail)).toEqual([
      expect.objectContaining({ refused: 'PAYEE_ACCOUNT_CHANGED', payee: 'E-2', includeChangedAccount: false }),
      expect.objectContaining({ refused: 'PAYEE_ACCOUNT_CHANGED', payee: 'E-2', includeChangedAccount: false }),
      expect.objectContaining({ refused: 'PAYEE_ACCOUNT_CHANGED', payee: 'E-2', includeChangedAccount: false }),
      expect.objectContaining({ refused: null, payee: 'E-2', includeChangedAccount: true }),
    ]);
    const events = await eventually(() => {
      const mine = r.receiver.received.filter((e) => e.data.paymentId === changed.paymentId);
      expect(mine.map((e) => [e.type, e.data.payee])).toEqual([['payment.paid', 'E-2']]);
      return mine;
    });
    expectDocumentedShape(events);
    const record = await r.gw.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: changed.paymentId } });
    const said = JSON.stringify([changed.reply, again, trail, events, record], (_key, value) =>
      typeof value === 'bigint' ? String(value) : value,
    );
    for (const card of [testCard(2), testCard(3)]) expect(said).not.toContain(card);
  });

  it('does not overwrite a later payment already remembered', async () => {
    const later = {
      payeeId: 'E-30',
      accountKey: 'f'.repeat(32),
      lastPaidAt: new Date(Date.now() + 86_400_000),
      lastPaymentId: 'paid-later',
      updatedAt: new Date(),
    };
    await r.gw.db.prisma.payeeAccount.create({ data: later });
    const payment = await create(r, 'E-30', testCard(30), { execute: true, includeChangedAccount: true });
    expect(payment.reply).toMatchObject({ __typename: 'CreatePaymentSuccess', payment: { payeeMark: { kind: 'ACCOUNT_CHANGED' } } });
    expect(await paid(r, payment.paymentId)).toEqual(later);
  });

  it('a batch row after a single payment sees its account, and a single payment after a batch sees the row’s', async () => {
    const single = await create(r, 'E-10', testCard(10), { execute: true });
    await paid(r, single.paymentId);
    const file =
      'reference,payee,provider,amount,pan\n' +
      `B-10,E-10,bank-card-russia,200.00,${testCard(10)}\n` +
      `B-11,E-11,bank-card-russia,300.00,${testCard(11)}\n`;
    const batch = await r.gw.services().importer.import({ source: textSource(file), uploadedBy: 'key:olga' });
    const rows = await r.gw.db.prisma.batchItem.findMany({ where: { batchId: batch.id }, orderBy: { line: 'asc' } });
    expect(rows.map((i) => [i.payeeId, i.payeeMark])).toEqual([
      ['E-10', 'KNOWN'],
      ['E-11', 'NEW_PAYEE'],
    ]);
    const approved = await r.gw.gql(
      `mutation($id: ID!) { approveBatch(id: $id, ignoreBalance: true) { __typename } }`,
      { id: batch.id },
      apiKey('april'),
    );
    expect(approved.body.data.approveBatch.__typename).toBe('ApproveBatchSuccess');
    await eventually(
      async () => expect((await r.gw.db.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } })).status).toBe('COMPLETED'),
      30_000,
    );
    // The batch's rows are remembered when it finishes, as before: not by their payments' records.
    expect((await r.gw.db.prisma.payeeAccount.findUniqueOrThrow({ where: { payeeId: 'E-11' } })).lastPaymentId).toBe(rows[1]!.paymentId);
    expect(await r.gw.db.prisma.payment.count({ where: { batchId: batch.id, payeeId: { not: null } } })).toBe(0);

    expect((await create(r, 'E-11', testCard(11))).reply.payment.payeeMark.kind).toBe('KNOWN');
    expect((await create(r, 'E-10', testCard(12))).reply.payment.payeeMark.kind).toBe('ACCOUNT_CHANGED');
  });
});

describe.each(testDatabaseKinds())('APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS for single payments on $name', (kind) => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig(kind, { APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS: 'true' });
  });
  afterAll(() => r.close());

  it('needs one key more than the policy says for a changed account, and only for it', async () => {
    const first = await create(r, 'E-20', testCard(20), { execute: true });
    expect(first.reply.__typename).toBe('CreatePaymentSuccess');
    await paid(r, first.paymentId);
    // Known: the creator alone, as the policy says.
    expect((await create(r, 'E-20', testCard(20), { execute: true })).reply).toMatchObject({
      __typename: 'CreatePaymentSuccess',
      payment: { payeeMark: { kind: 'KNOWN' } },
    });

    const changed = await create(r, 'E-20', testCard(21), { execute: true, includeChangedAccount: true });
    expect(changed.reply).toMatchObject({
      __typename: 'PaymentRefusedError',
      code: 'SECOND_PERSON_REQUIRED',
      paymentId: changed.paymentId,
    });
    expect(changed.reply.message).toMatch(/needs 1 key other than the one that created it.*it needs 1 more approver$/);
    // Another key that does not include the changed account approves nothing.
    expect(await execute(r, changed.paymentId, 'petr')).toMatchObject({ code: 'PAYEE_ACCOUNT_CHANGED' });
    expect(await r.gw.db.prisma.approval.count({ where: { paymentId: changed.paymentId } })).toBe(0);
    expect(await r.gw.sb.effects(changed.paymentId)).toMatchObject({ executeCalls: 0 });
    expect(await execute(r, changed.paymentId, 'petr', true)).toMatchObject({ __typename: 'ExecutePaymentSuccess' });
    expect(await r.gw.sb.effects(changed.paymentId)).toMatchObject({ executeCalls: 1 });
  });
});

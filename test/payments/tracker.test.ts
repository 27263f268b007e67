import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentEvents } from '../../src/payments/events.ts';
import { PaymentTracker, READ_BACK_FIRST_DELAY_MS } from '../../src/payments/tracker.ts';
import type { PaymentPayload, Status } from '../../src/payout/models.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';

const payload: PaymentPayload = {
  amount: { value: '250.00', currency: 'RUB' },
  recipientDetails: { providerCode: 'bank-card-russia', fields: { pan: '2200000000000004' } },
};
const status = (value: Status['value'], errorCode?: Status['errorCode']): Status => ({
  value,
  changedDateTime: '2026-11-22T10:00:00+00:00',
  ...(errorCode === undefined ? {} : { errorCode }),
});

describe.each(testDatabaseKinds())('payment tracker on $name', (kind) => {
  let test: TestDatabase;
  let tracker: PaymentTracker;
  let now = new Date('2026-11-22T10:00:00Z');
  const events = new PaymentEvents();
  beforeAll(async () => {
    test = await kind.create();
    await test.db.migrate();
    tracker = new PaymentTracker(test.db.prisma, events, { agentId: 'agent-1', now: () => now });
  });
  afterAll(() => test.drop());

  let sequence = 0;
  async function intent() {
    const paymentId = `t-${++sequence}`;
    expect(await tracker.recordIntent({ paymentId, agentId: 'agent-1', payload })).toBe(true);
    return paymentId;
  }

  it('records an intent once, with the card number masked', async () => {
    const id = await intent();
    expect(await tracker.recordIntent({ paymentId: id, agentId: 'agent-1', payload })).toBe(false);
    const tracked = (await tracker.find(id))!;
    expect(tracked).toMatchObject({ status: 'PENDING', recipient: { pan: '2200********0004' } });
    expect(tracked.amount.toFixed(2)).toBe('250.00');
    expect(tracked.history.map((h) => h.status)).toEqual(['PENDING']);
  });

  it('moves forward only: duplicates and older statuses change nothing', async () => {
    const id = await intent();
    expect(await tracker.applyUpstream(id, { status: status('READY') }, 'create')).toBe('applied');
    expect(await tracker.applyUpstream(id, { status: status('READY') }, 'webhook')).toBe('duplicate');
    expect(await tracker.applyUpstream(id, { status: status('COMPLETED') }, 'webhook')).toBe('applied');
    expect(await tracker.applyUpstream(id, { status: status('IN_PROGRESS') }, 'webhook')).toBe('stale');
    expect(await tracker.applyUpstream(id, { status: status('FAILED', 'BILLING_DECLINED') }, 'webhook')).toBe('stale');
    expect((await tracker.find(id))!.history.map((h) => h.status)).toEqual(['PENDING', 'READY', 'COMPLETED']);
  });

  it('serialises concurrent reports of one payment: each status is recorded once', async () => {
    const id = await intent();
    const reports = ['READY', 'IN_PROGRESS', 'COMPLETED', 'IN_PROGRESS', 'READY', 'COMPLETED'] as const;
    await Promise.all(reports.map((value) => tracker.applyUpstream(id, { status: status(value) }, 'webhook')));
    const tracked = (await tracker.find(id))!;
    expect(tracked.status).toBe('COMPLETED');
    const seen = tracked.history.map((h) => h.status);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.at(-1)).toBe('COMPLETED');
  });

  it('publishes applied changes only', async () => {
    const id = await intent();
    const received: string[] = [];
    const subscription = events.subscribe(id);
    const reading = (async () => {
      for await (const change of subscription) {
        received.push(change.status);
        if (change.status === 'COMPLETED') break;
      }
    })();
    await tracker.applyUpstream(id, { status: status('READY') }, 'create');
    await tracker.applyUpstream(id, { status: status('READY') }, 'webhook');
    await tracker.applyUpstream(id, { status: status('COMPLETED') }, 'webhook');
    await reading;
    expect(received).toEqual(['READY', 'COMPLETED']);
  });

  it('marks REJECTED and UNKNOWN only while no final status is known', async () => {
    const refused = await intent();
    expect(await tracker.markLocal(refused, 'REJECTED', { code: 'payout.bad.request', message: 'no' }, 'create')).toBe('applied');
    expect(await tracker.applyUpstream(refused, { status: status('READY') }, 'create')).toBe('applied');
    const done = await intent();
    await tracker.applyUpstream(done, { status: status('COMPLETED') }, 'execute');
    expect(await tracker.markLocal(done, 'UNKNOWN', { code: 'payout.outcome.unknown', message: '?' }, 'execute')).toBe('stale');
  });

  it('records a payment made elsewhere from a full read, but not from a bare webhook', async () => {
    expect(await tracker.applyUpstream('elsewhere-1', { status: status('COMPLETED') }, 'webhook')).toBe('unknown-payment');
    expect(await tracker.find('elsewhere-1')).toBeNull();
    const payment = {
      paymentId: 'elsewhere-2',
      creationDateTime: '2026-11-22T10:00:00+00:00',
      expirationDateTime: '2026-11-23T10:00:00+00:00',
      status: status('READY'),
      amount: { value: '10.00', currency: 'RUB' as const },
      recipientDetails: { providerCode: 'sbp-b2c' as const, fields: { account: '79001234567', bankId: 'b' } },
      commission: { value: '10.00', currency: 'RUB' as const },
    };
    expect(await tracker.applyUpstream('elsewhere-2', { status: payment.status, payment }, 'read')).toBe('applied');
    expect((await tracker.find('elsewhere-2'))!).toMatchObject({
      status: 'READY',
      agentId: 'agent-1',
      recipient: { account: '*******4567' },
    });
  });

  it('schedules IN_PROGRESS and UNKNOWN for read-back with growing delays', async () => {
    const id = await intent();
    await tracker.applyUpstream(id, { status: status('IN_PROGRESS') }, 'execute');
    expect(await tracker.dueForReadBack(10)).not.toContain(id);
    now = new Date(now.getTime() + READ_BACK_FIRST_DELAY_MS);
    expect(await tracker.dueForReadBack(10)).toContain(id);
    await tracker.postponeCheck(id);
    expect(await tracker.dueForReadBack(10)).not.toContain(id);
    const row = await test.db.prisma.payment.findUniqueOrThrow({ where: { paymentId: id } });
    expect(row.checkAttempts).toBe(1);
    expect(row.nextCheckAt!.getTime() - now.getTime()).toBe(2 * READ_BACK_FIRST_DELAY_MS);
    await tracker.applyUpstream(id, { status: status('COMPLETED') }, 'reconcile');
    now = new Date(now.getTime() + 3_600_000);
    expect(await tracker.dueForReadBack(10)).not.toContain(id);
  });
});

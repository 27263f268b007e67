import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import { EventSubscriptionError, eventTypes } from '../../src/outbound/index.ts';
import { admin, outboundRig, paid, testSettings } from '../support/outbound-rig.ts';

const WAIT = 60_000;

describe.each(testDatabaseKinds())('outbound events on $name', (kind) => {
  let test: TestDatabase;
  let receiver: EventReceiver;
  let rig: ReturnType<typeof outboundRig>;

  beforeEach(async () => {
    test = await kind.create();
    await test.db.migrate();
    receiver = await startEventReceiver();
    rig = outboundRig(test.db);
  });
  afterEach(async () => {
    await rig.close();
    await receiver.close();
    await test.drop();
  });

  async function subscribe(types?: string[], eventsPerRequest?: number) {
    const { subscription, secret } = await rig.subscriptions.create(
      { url: receiver.url, types, description: 'HR system', eventsPerRequest },
      admin,
    );
    receiver.secrets.push(secret);
    return subscription;
  }

  it('delivers each event signed, once, in order, with unique ids and sequence numbers from 1', async () => {
    await subscribe();
    for (let line = 1; line <= 20; line++) await rig.record(paid(line));
    rig.deliverer().start();
    await eventually(() => expect(receiver.received).toHaveLength(20), WAIT);
    expect(receiver.unverified).toEqual([]);
    expect(new Set(receiver.received.map((e) => e.id)).size).toBe(20);
    expect(receiver.received.map((e) => e.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(receiver.received.map((e) => e.data.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(receiver.received[0]).toMatchObject({ type: 'batch_row.paid', data: { batchId: 'b1', paymentId: 'p-1', amount: '100.00' } });
  });

  it('sends nothing of a change that rolled back, and only the types subscribed', async () => {
    await subscribe(['batch.completed']);
    await expect(
      test.db.prisma.$transaction(async (tx) => {
        const { recordEvents } = await import('../../src/outbound/index.ts');
        const { sqlOf } = await import('../../src/db/database.ts');
        await recordEvents(sqlOf(tx), [{ type: 'batch.completed', subjectId: 'rolled-back', data: { batchId: 'rolled-back' } }]);
        throw new Error('the approval failed after its event was written');
      }),
    ).rejects.toThrow('approval failed');
    await rig.record(paid(1), { type: 'batch.completed', subjectId: 'b1', data: { batchId: 'b1' } });
    rig.deliverer().start();
    await eventually(() => expect(receiver.received).toHaveLength(1), WAIT);
    expect(receiver.received[0]).toMatchObject({ type: 'batch.completed', sequence: 1, data: { batchId: 'b1' } });
    // Nothing else comes: the deliverer has passed every event (its backlog is empty).
    await eventually(async () => expect((await rig.subscriptions.list())[0]!.backlog).toBe(0), WAIT);
    expect(receiver.received).toHaveLength(1);
  });

  it('holds later events behind one a receiver refuses, and delivers them in order once it takes it', async () => {
    const subscription = await subscribe();
    receiver.answer('fail');
    for (let line = 1; line <= 5; line++) await rig.record(paid(line));
    rig.deliverer().start();
    await eventually(async () => {
      const attempts = await rig.subscriptions.attempts(subscription.id, 50, null);
      expect(attempts.filter((a) => a.outcome === 'failed').length).toBeGreaterThanOrEqual(3);
    }, WAIT);
    const failing = await rig.subscriptions.get(subscription.id);
    expect(failing.failingSince).not.toBeNull();
    expect(failing.backlog).toBe(5);
    // Every failed attempt was of the first event: the later ones waited.
    const attempts = await rig.subscriptions.attempts(subscription.id, 50, null);
    expect(new Set(attempts.map((a) => a.sequence))).toEqual(new Set(['1']));
    receiver.answer('ok');
    await eventually(() => expect(receiver.received).toHaveLength(5), WAIT);
    expect(receiver.received.map((e) => [e.sequence, e.data.line])).toEqual([1, 2, 3, 4, 5].map((n) => [n, n]));
    // The deliverer writes what it delivered after the 2xx (at the window's end): waited for.
    await eventually(async () => expect((await rig.subscriptions.get(subscription.id)).failingSince).toBeNull(), WAIT);
  });

  it('cuts off a receiver that does not answer in time and does not follow a redirect', async () => {
    const slow = outboundRig(test.db, testSettings({ timeoutMs: 300 }));
    try {
      const { subscription, secret } = await slow.subscriptions.create({ url: receiver.url }, admin);
      receiver.secrets.push(secret);
      receiver.answer('hang');
      await slow.record(paid(1));
      slow.deliverer().start();
      await eventually(
        async () => expect((await slow.subscriptions.attempts(subscription.id, 10, null)).map((a) => a.outcome)).toContain('timeout'),
        WAIT,
      );
      receiver.answer('redirect');
      await eventually(
        async () => expect((await slow.subscriptions.attempts(subscription.id, 10, null)).map((a) => a.outcome)).toContain('redirect'),
        WAIT,
      );
      const redirect = (await slow.subscriptions.attempts(subscription.id, 10, null)).find((a) => a.outcome === 'redirect')!;
      expect(redirect).toMatchObject({ statusCode: 307, excerpt: 'redirect to http://127.0.0.1:9/elsewhere not followed' });
      expect(receiver.received).toEqual([]);
      receiver.answer('ok');
      await eventually(() => expect(receiver.received).toHaveLength(1), WAIT);
    } finally {
      await slow.close();
    }
  });

  it('turns a subscription off once it has failed for EVENT_RETRY_FOR_MS, with an event and an audit entry', async () => {
    const short = outboundRig(test.db, testSettings({ retryForMs: 1 }));
    try {
      const { subscription } = await short.subscriptions.create({ url: receiver.url }, admin);
      receiver.answer('fail');
      await short.record(paid(1));
      short.deliverer().start();
      await eventually(async () => expect((await short.subscriptions.get(subscription.id)).enabled).toBe(false), WAIT);
      const off = await short.subscriptions.get(subscription.id);
      expect(off.disabledReason).toBe('failing');
      const events = await test.db.prisma.outboundEvent.findMany({ where: { type: 'event_subscription.disabled' } });
      expect(events.map((e) => e.subjectId)).toEqual([subscription.id]);
      expect(Object.keys(events[0]!.data as object).sort()).toEqual([...eventTypes['event_subscription.disabled'].fields].sort());
      expect(await test.db.prisma.auditEvent.count({ where: { action: 'events.disable' } })).toBe(1);
      receiver.answer('ok');
    } finally {
      await short.close();
    }
  });

  it('replays every event since a time with their ids, and resends one with its sequence number', async () => {
    const subscription = await subscribe();
    const before = new Date(Date.now() - 60_000);
    for (let line = 1; line <= 3; line++) await rig.record(paid(line));
    rig.deliverer().start();
    await eventually(() => expect(receiver.received).toHaveLength(3), WAIT);
    const ids = receiver.received.map((e) => e.id);
    expect(await rig.subscriptions.replaySince(subscription.id, before, admin)).toBe(3);
    await eventually(() => expect(receiver.received).toHaveLength(6), WAIT);
    expect(receiver.received.slice(3).map((e) => e.id)).toEqual(ids);
    expect(receiver.received.slice(3).map((e) => e.sequence)).toEqual([4, 5, 6]);
    const outcome = await rig.subscriptions.resend(subscription.id, ids[1]!, admin);
    expect(outcome).toMatchObject({ outcome: 'delivered', statusCode: 204 });
    expect(receiver.received.at(-1)).toMatchObject({ id: ids[1], sequence: 2 });
    const resent = (await rig.subscriptions.attempts(subscription.id, 1, null))[0]!;
    expect(resent).toMatchObject({ eventId: ids[1], resend: true, attempt: 0 });
  });

  // The deliverer writes what a window sent every 250 ms and at its end: the replay lands at
  // the window's end, or (writing before every send) at a write in its middle, whose rest then
  // waits for the replay's order.
  it.each([
    { at: 'the window’s end', writeEveryMs: 3_600_000, ids: [0, 1, 2, 3, 4, 0, 1, 2, 3, 4] },
    { at: 'a write in the window', writeEveryMs: 0, ids: [0, 0, 1, 2, 3, 4] },
  ])(
    'replays after the events in flight when a deliverer holds the subscription, numbering on from them: at $at',
    async ({ writeEveryMs, ids }) => {
      const subscription = await subscribe();
      const before = new Date(Date.now() - 60_000);
      for (let line = 1; line <= 5; line++) await rig.record(paid(line));
      receiver.hold();
      rig.deliverer({ writeEveryMs }).start();
      await eventually(() => expect(receiver.received).toHaveLength(1), WAIT);
      // The first event is in flight: its deliverer holds the lease and has taken all five.
      expect(await rig.subscriptions.replaySince(subscription.id, before, admin)).toBe(5);
      receiver.release();
      await eventually(() => expect(receiver.received).toHaveLength(ids.length), WAIT);
      await eventually(async () => expect((await rig.subscriptions.get(subscription.id)).backlog).toBe(0), WAIT);
      const lines = receiver.received.map((e) => e.data.line - 1);
      expect(lines).toEqual(ids);
      expect(receiver.received.map((e) => e.sequence)).toEqual(ids.map((_, i) => i + 1));
    },
  );

  it('a replay with nothing since its time, asked while a deliverer holds the subscription, sends nothing again', async () => {
    const subscription = await subscribe();
    for (let line = 1; line <= 5; line++) await rig.record(paid(line));
    receiver.hold();
    rig.deliverer({ writeEveryMs: 3_600_000 }).start();
    await eventually(() => expect(receiver.received).toHaveLength(1), WAIT);
    // Nothing happened since a minute from now: the window in flight is not a replay's.
    await rig.subscriptions.replaySince(subscription.id, new Date(Date.now() + 60_000), admin);
    receiver.release();
    // A replay taken for the cursor in flight would set it back at the window's end: the backlog
    // would read 0 only once the five were sent a second time.
    await eventually(async () => expect((await rig.subscriptions.get(subscription.id)).backlog).toBe(0), WAIT);
    expect(receiver.received.map((e) => e.data.line)).toEqual([1, 2, 3, 4, 5]);
  });

  it('stops at the next write when an admin turns the subscription off mid-window, and goes on in order once on', async () => {
    const subscription = await subscribe();
    for (let line = 1; line <= 5; line++) await rig.record(paid(line));
    receiver.hold();
    rig.deliverer({ writeEveryMs: 0 }).start();
    await eventually(() => expect(receiver.received).toHaveLength(1), WAIT);
    await rig.subscriptions.update(subscription.id, { enabled: false }, admin);
    receiver.release();
    // Its deliverer writes the first event's delivery, sees it off and lets the lease go.
    await eventually(async () => {
      const [row] = await test.db.query<{ leaseOwner: string | null }>(`SELECT "leaseOwner" FROM "EventSubscription"`, []);
      expect(row).toEqual({ leaseOwner: null });
    }, WAIT);
    expect(receiver.received.map((e) => e.data.line)).toEqual([1]);
    expect((await rig.subscriptions.get(subscription.id)).backlog).toBe(4);
    await rig.subscriptions.update(subscription.id, { enabled: true }, admin);
    await eventually(() => expect(receiver.received).toHaveLength(5), WAIT);
    expect(receiver.received.map((e) => [e.sequence, e.data.line])).toEqual([1, 2, 3, 4, 5].map((n) => [n, n]));
  });

  it('signs with both secrets while a rotation overlaps', async () => {
    const subscription = await subscribe();
    rig.deliverer().start();
    await rig.record(paid(1));
    await eventually(() => expect(receiver.received).toHaveLength(1), WAIT);
    const { secret } = await rig.subscriptions.rotateSecret(subscription.id, admin);
    receiver.secrets.push(secret);
    await rig.record(paid(2));
    await eventually(() => expect(receiver.received).toHaveLength(2), WAIT);
    expect(receiver.received.map((e) => e.verifiedBy)).toEqual([[0], [0, 1]]);
    // A receiver that knows only the new secret verifies too.
    receiver.secrets.splice(0, 1);
    await rig.record(paid(3));
    await eventually(() => expect(receiver.received).toHaveLength(3), WAIT);
    expect(receiver.received[2]!.verifiedBy).toEqual([0]);
  });

  it('two deliverers racing deliver each event once and in order', async () => {
    await subscribe();
    for (let line = 1; line <= 30; line++) await rig.record(paid(line));
    rig.deliverer().start();
    rig.deliverer().start();
    await eventually(() => expect(receiver.received.length).toBeGreaterThanOrEqual(30), WAIT);
    await eventually(async () => expect((await rig.subscriptions.list())[0]!.backlog).toBe(0), WAIT);
    expect(receiver.received.map((e) => e.sequence)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  /** A subscription with eventsPerRequest above 1: lists of events (type event.list) in one signed request. */
  describe('in lists', () => {
    it('sends lists of up to eventsPerRequest events, each list verified, the events in order with their own ids and numbers', async () => {
      const subscription = await subscribe(undefined, 8);
      expect(subscription.eventsPerRequest).toBe(8);
      for (let line = 1; line <= 20; line++) await rig.record(paid(line));
      rig.deliverer().start();
      await eventually(() => expect(receiver.received).toHaveLength(20), WAIT);
      expect(receiver.unverified).toEqual([]);
      expect(receiver.requestSizes).toEqual([8, 8, 4]);
      expect(receiver.received.map((e) => e.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(receiver.received.map((e) => e.data.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(new Set(receiver.received.map((e) => e.id)).size).toBe(20);
      // The log has each event's attempt, as for one event per request (written after the last 2xx).
      await eventually(async () => {
        const attempts = await rig.subscriptions.attempts(subscription.id, 50, null);
        expect(attempts.map((a) => [a.sequence, a.outcome]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
          Array.from({ length: 20 }, (_, i) => [String(i + 1), 'delivered']),
        );
      }, WAIT);
    });

    it('tries a refused list again whole, later events waiting behind it', async () => {
      const subscription = await subscribe(undefined, 3);
      receiver.answer('fail');
      for (let line = 1; line <= 5; line++) await rig.record(paid(line));
      rig.deliverer().start();
      await eventually(async () => {
        const attempts = await rig.subscriptions.attempts(subscription.id, 50, null);
        expect(attempts.filter((a) => a.sequence === '1' && a.outcome === 'failed').length).toBeGreaterThanOrEqual(2);
      }, WAIT);
      // Only the first list was tried: its three events, never the two behind it.
      const attempts = await rig.subscriptions.attempts(subscription.id, 50, null);
      expect(new Set(attempts.map((a) => a.sequence))).toEqual(new Set(['1', '2', '3']));
      expect(Math.max(...attempts.filter((a) => a.sequence === '1').map((a) => a.attempt))).toBeGreaterThanOrEqual(2);
      receiver.answer('ok');
      await eventually(() => expect(receiver.received).toHaveLength(5), WAIT);
      expect(receiver.received.map((e) => [e.sequence, e.data.line])).toEqual([1, 2, 3, 4, 5].map((n) => [n, n]));
      expect(receiver.requestSizes).toEqual([3, 2]);
    });

    // Issue 37: a lists-mode receiver knows the webhook-id of the request it got, not its events' ids.
    it('resends a list by the webhook-id the receiver got: the same events, ids and numbers, in one list', async () => {
      const subscription = await subscribe(undefined, 3);
      for (let line = 1; line <= 5; line++) await rig.record(paid(line));
      rig.deliverer().start();
      await eventually(() => expect(receiver.received).toHaveLength(5), WAIT);
      await eventually(async () => expect((await rig.subscriptions.attempts(subscription.id, 50, null)).length).toBe(5), WAIT);
      const listId = receiver.requestIds[1]!;
      expect(listId).toBe(`list_${receiver.received[3]!.id}_2`);
      expect(await rig.subscriptions.resend(subscription.id, listId, admin)).toMatchObject({ outcome: 'delivered', statusCode: 204 });
      expect(receiver.requestIds.at(-1)).toBe(listId);
      expect(receiver.received.slice(5).map((e) => [e.id, e.sequence, e.data.line])).toEqual(
        receiver.received.slice(3, 5).map((e) => [e.id, e.sequence, e.data.line]),
      );
      const resent = await rig.subscriptions.attempts(subscription.id, 2, null);
      expect(resent.map((a) => [a.sequence, a.resend]).sort()).toEqual([
        ['4', true],
        ['5', true],
      ]);
    });

    it('refuses a list or event id it never sent as EVENT_NOT_FOUND, saying why', async () => {
      const subscription = await subscribe(undefined, 3);
      await rig.record(paid(1));
      rig.deliverer().start();
      await eventually(() => expect(receiver.received).toHaveLength(1), WAIT);
      await eventually(async () => expect((await rig.subscriptions.attempts(subscription.id, 50, null)).length).toBe(1), WAIT);
      const first = receiver.received[0]!.id;
      const refusals = await Promise.all(
        [`list_${first}_3`, 'list_00000000-0000-4000-8000-000000000000_2', 'not-an-event', `list_${first}_0`].map((eventId) =>
          rig.subscriptions.resend(subscription.id, eventId, admin).catch((error: unknown) => error),
        ),
      );
      for (const refusal of refusals) expect(refusal).toMatchObject({ code: 'EVENT_NOT_FOUND' });
      expect((refusals[0] as Error).message).toContain('held 3 events from sequence 1');
      expect((refusals[1] as Error).message).toContain('never sent to this subscription');
    });

    it('refuses a size outside 1 to 100, naming it, and changes it on update', async () => {
      for (const size of [0, 101, 2.5]) {
        const refusal = await rig.subscriptions
          .create({ url: receiver.url, eventsPerRequest: size }, admin)
          .catch((error: unknown) => error);
        expect(refusal).toBeInstanceOf(EventSubscriptionError);
        expect(refusal).toMatchObject({
          code: 'EVENT_REQUEST_SIZE_INVALID',
          message: `eventsPerRequest ${size} must be a whole number from 1 to 100`,
        });
      }
      expect(await rig.subscriptions.list()).toEqual([]);
      const subscription = await subscribe(undefined, 1);
      expect(subscription.eventsPerRequest).toBe(1);
      expect((await rig.subscriptions.update(subscription.id, { eventsPerRequest: 50 }, admin)).eventsPerRequest).toBe(50);
      for (let line = 1; line <= 4; line++) await rig.record(paid(line));
      rig.deliverer().start();
      await eventually(() => expect(receiver.received).toHaveLength(4), WAIT);
      expect(receiver.requestSizes).toEqual([4]);
    });
  });
});

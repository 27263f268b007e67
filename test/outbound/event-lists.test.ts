import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventSubscriptionError } from '../../src/outbound/index.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import { admin, outboundRig, paid } from './outbound-rig.ts';

const WAIT = 60_000;

/** A subscription with eventsPerRequest above 1: lists of events (type event.list) in one signed request. */
describe.each(testDatabaseKinds())('events in lists on $name', (kind) => {
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

  async function subscribe(eventsPerRequest: number) {
    const { subscription, secret } = await rig.subscriptions.create({ url: receiver.url, eventsPerRequest }, admin);
    receiver.secrets.push(secret);
    return subscription;
  }

  it('sends lists of up to eventsPerRequest events, each list verified, the events in order with their own ids and numbers', async () => {
    const subscription = await subscribe(8);
    expect(subscription.eventsPerRequest).toBe(8);
    for (let line = 1; line <= 20; line++) await rig.record(paid(line));
    rig.deliverer().start();
    await eventually(() => expect(receiver.received).toHaveLength(20), WAIT);
    expect(receiver.unverified).toEqual([]);
    expect(receiver.requestSizes).toEqual([8, 8, 4]);
    expect(receiver.received.map((e) => e.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(receiver.received.map((e) => e.data.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(receiver.received.map((e) => e.id)).size).toBe(20);
    // The log has each event's attempt, as for one event per request.
    const attempts = await rig.subscriptions.attempts(subscription.id, 50, null);
    expect(attempts.map((a) => [a.sequence, a.outcome]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
      Array.from({ length: 20 }, (_, i) => [String(i + 1), 'delivered']),
    );
  });

  it('tries a refused list again whole, later events waiting behind it', async () => {
    const subscription = await subscribe(3);
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

  it('refuses a size outside 1 to 100, naming it, and changes it on update', async () => {
    for (const size of [0, 101, 2.5]) {
      const refusal = await rig.subscriptions.create({ url: receiver.url, eventsPerRequest: size }, admin).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(EventSubscriptionError);
      expect(refusal).toMatchObject({ code: 'EVENT_REQUEST_SIZE_INVALID', message: `eventsPerRequest ${size} must be a whole number from 1 to 100` });
    }
    expect(await rig.subscriptions.list()).toEqual([]);
    const subscription = await subscribe(1);
    expect(subscription.eventsPerRequest).toBe(1);
    expect((await rig.subscriptions.update(subscription.id, { eventsPerRequest: 50 }, admin)).eventsPerRequest).toBe(50);
    for (let line = 1; line <= 4; line++) await rig.record(paid(line));
    rig.deliverer().start();
    await eventually(() => expect(receiver.received).toHaveLength(4), WAIT);
    expect(receiver.requestSizes).toEqual([4]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpointProblem } from '../../src/outbound/delivery/endpoint.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import { admin, outboundRig, paid, testSettings } from '../support/outbound-rig.ts';

const publicAddress = '93.184.216.34';
const resolveTo = (address: string) => async () => [{ address }];

describe('where an event subscription may point', () => {
  it.each([
    ['http://hooks.example.com/', 'must be an https URL'],
    ['https://user:pw@hooks.example.com/', 'user name or password'],
    ['https://127.0.0.1/hook', 'private, loopback'],
    ['https://localhost:8443/hook', 'private, loopback'],
    ['https://10.1.2.3/hook', '10.1.2.3'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['https://[::1]/hook', 'private, loopback'],
    ['https://[::ffff:192.168.1.5]/hook', 'private, loopback'],
    ['not a url', 'not an absolute URL'],
  ])('refuses %s', async (url, words) => {
    expect(await endpointProblem(url, { allowLocal: false, resolve: resolveTo(publicAddress) })).toContain(words);
  });

  it('refuses a name that resolves to a private address, naming both', async () => {
    expect(await endpointProblem('https://hooks.internal.example/', { allowLocal: false, resolve: resolveTo('10.0.0.7') })).toContain(
      'hooks.internal.example resolves to 10.0.0.7',
    );
  });

  it('takes a public https endpoint, and with EVENTS_ALLOW_LOCAL_ENDPOINTS plain http to localhost', async () => {
    expect(
      await endpointProblem('https://hooks.example.com/payout', { allowLocal: false, resolve: resolveTo(publicAddress) }),
    ).toBeUndefined();
    expect(await endpointProblem('http://127.0.0.1:4100/', { allowLocal: true })).toBeUndefined();
    expect(await endpointProblem('http://localhost:4100/', { allowLocal: true })).toBeUndefined();
    // The setting opens loopback, not plain http to the world.
    expect(await endpointProblem('http://hooks.example.com/', { allowLocal: true })).toContain('https');
  });
});

describe('an endpoint whose name comes to resolve inside (DNS rebinding)', () => {
  let test: TestDatabase;
  let receiver: EventReceiver;
  beforeEach(async () => {
    test = await testDatabaseKinds()[0]!.create();
    await test.db.migrate();
    receiver = await startEventReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await test.drop();
  });

  it('is refused at delivery, before anything is sent', async () => {
    let answer = publicAddress;
    const resolve = async () => [{ address: answer }];
    const rig = outboundRig(test.db, testSettings({ endpoints: { allowLocal: false, resolve } }));
    try {
      const { subscription } = await rig.subscriptions.create(
        { url: `https://hooks.example.com:${new URL(receiver.url).port}/payout-events` },
        admin,
      );
      answer = '127.0.0.1';
      await rig.record(paid(1));
      rig.deliverer({}, resolve).start();
      await eventually(async () => {
        const [attempt] = await rig.subscriptions.attempts(subscription.id, 1, null);
        expect(attempt).toMatchObject({ outcome: 'refused-target', statusCode: null });
        expect(attempt!.excerpt).toContain('hooks.example.com resolves to 127.0.0.1');
      }, 60_000);
      expect(receiver.requests()).toBe(0);
    } finally {
      await rig.close();
    }
  });
});

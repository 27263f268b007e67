import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchEvents } from '../../src/batch/events/batch-events.ts';
import { createPgEventTarget, type SharedEventTarget } from '../../src/events/pg-event-target.ts';
import { createLogger } from '../../src/log/logger.ts';
import { PaymentEvents } from '../../src/payments/events.ts';
import { testDatabaseKinds, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';

/**
 * The PostgreSQL event target between two "processes" (two targets, each with its own
 * listener connection) on one database: what one publishes reaches the other's
 * subscribers, however many and however fast; its own notifications are not delivered
 * twice; a listener connection killed by the server comes back and says so.
 */
const postgres = testDatabaseKinds().find((kind) => kind.name === 'postgresql');
const logger = createLogger({ level: 'silent' });

describe.skipIf(postgres === undefined)('PostgreSQL LISTEN/NOTIFY event target', () => {
  let database: TestDatabase;
  let url: string;
  const targets: SharedEventTarget[] = [];
  const target = () => {
    const made = createPgEventTarget({ connectionString: url, query: database.db.query, logger });
    targets.push(made);
    return made;
  };

  beforeAll(async () => {
    database = await postgres!.create();
    url = (database.target as { databaseUrl: string }).databaseUrl;
  });
  afterAll(async () => {
    for (const made of targets) await made.close();
    await database?.drop();
  });

  /** Collects what a subscription yields, in the background. */
  function collect<T>(iterator: AsyncIterableIterator<T>) {
    const values: T[] = [];
    void (async () => {
      for await (const value of iterator) values.push(value);
    })();
    return { values, stop: () => iterator.return?.() };
  }

  /** Waits until the listener is attached: an event sent now is one that arrives. */
  async function attached(publish: () => void, values: unknown[]): Promise<void> {
    await eventually(() => {
      publish();
      expect(values.length).toBeGreaterThan(0);
    }, 20_000);
  }

  it('delivers every event of a burst from one process to subscribers in another, once each', async () => {
    const here = new PaymentEvents(target());
    const there = new PaymentEvents(target());
    const received = collect(there.subscribe('p-burst'));
    const own = collect(here.subscribe('p-burst'));
    await attached(() => here.publish({ paymentId: 'p-burst', status: 'warm' }), received.values);

    // More than one NOTIFY statement's worth in one tick, then one per tick.
    const sent: string[] = [];
    for (let i = 0; i < 1_000; i++) sent.push(`s-${i}`);
    for (const status of sent) here.publish({ paymentId: 'p-burst', status });
    for (let i = 1_000; i < 1_030; i++) {
      sent.push(`s-${i}`);
      here.publish({ paymentId: 'p-burst', status: `s-${i}` });
      await new Promise((resolve) => setImmediate(resolve));
    }
    here.publish({ paymentId: 'p-other', status: 's-other' });
    const real = (values: Array<{ status: string }>) => values.map((v) => v.status).filter((status) => status.startsWith('s-'));
    // In order, each once: the publisher's own subscribers get them at once, not again from the database.
    await eventually(() => expect(real(received.values)).toEqual(sent), 20_000);
    expect(real(own.values)).toEqual(sent);
    received.stop();
    own.stop();
  });

  it('never throws at the publisher when a subscriber falls far behind; it gets the latest events, each once, in order', async () => {
    const here = new PaymentEvents(target());
    const there = new PaymentEvents(target());
    const received = collect(there.subscribe('p-flood'));
    const own = collect(here.subscribe('p-flood'));
    await attached(() => here.publish({ paymentId: 'p-flood', status: 'warm' }), received.values);
    const sent = Array.from({ length: 5_000 }, (_, i) => `s-${i}`);
    for (const status of sent) here.publish({ paymentId: 'p-flood', status });
    const real = (values: Array<{ status: string }>) => values.map((v) => v.status).filter((status) => status.startsWith('s-'));
    for (const subscriber of [received, own]) {
      await eventually(() => expect(real(subscriber.values).at(-1)).toBe('s-4999'), 20_000);
      const got = real(subscriber.values).map((status) => Number(status.slice(2)));
      expect([...got].sort((a, b) => a - b)).toEqual(got);
      expect(new Set(got).size).toBe(got.length);
    }
    received.stop();
    own.stop();
  });

  it('carries payment changes as ids and status', async () => {
    const here = new PaymentEvents(target());
    const there = new PaymentEvents(target());
    const received = collect(there.subscribe('p-1'));
    await attached(() => here.publish({ paymentId: 'p-1', status: 'READY' }), received.values);
    here.publish({ paymentId: 'p-1', status: 'COMPLETED' });
    await eventually(() => expect(received.values.at(-1)).toEqual({ paymentId: 'p-1', status: 'COMPLETED' }), 20_000);
    received.stop();
  });

  it('comes back after the server ends its listener connection, and tells subscribers to read again', async () => {
    const here = new BatchEvents(target());
    const there = new BatchEvents(target());
    const received = collect(there.subscribe('b-9'));
    await attached(() => here.publish('b-9'), received.values);

    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'payout-gateway events'`,
      );
      expect(killed.rows.length).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.end();
    }
    const count = received.values.length;
    // Events after the cut arrive once the listener is back (one read-again notice on reconnect, too).
    await eventually(() => {
      here.publish('b-9');
      expect(received.values.length).toBeGreaterThan(count + 1);
    }, 30_000);
    expect(new Set(received.values)).toEqual(new Set(['b-9']));
    received.stop();
  });
});

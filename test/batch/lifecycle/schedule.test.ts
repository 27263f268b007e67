import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseDueBatches } from '../../../src/batch/lifecycle/sql/release-due-batches.ts';
import { claimItems } from '../../../src/batch/rows/sql/claim-items.ts';
import { testWorker, textSource } from '../../support/batch.ts';
import { setSandboxBalance, startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { sweepSchedule } from '../../../src/batch/lifecycle/schedule-sweep.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { apiKey, namedApiKeysEnv } from '../../support/keys.ts';
import { testDatabaseKinds } from '../../support/database.ts';
import { sqlOf, type SqlQuery } from '../../../src/db/database.ts';

/** The release's transaction as the runtime gives it to its worker. */
const inTransactionOf =
  (gw: TestGateway) =>
  <T>(work: (query: SqlQuery) => Promise<T>) =>
    gw.db.prisma.$transaction((tx) => work(sqlOf(tx)));

/**
 * Scheduled batches through GraphQL on a real database: approve with payAt, nothing claimed
 * while it waits, released once by racing sweeps, refusals in words, reschedule and cancel.
 */
describe.each(testDatabaseKinds())('scheduled batches on $name', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      env: {
        WORKER_IN_PROCESS: 'false',
        GATEWAY_API_KEYS: namedApiKeysEnv({ up: 'operator', ap: 'approver', op: 'operator', ad: 'admin' }),
      },
      sandbox: { inProgressMs: 50, balance: '1000000.00' },
      database: kind,
    });
  });
  afterAll(() => gw.close());

  const db = () => gw.db.prisma;
  let amount = 10;
  async function uploaded(value = `${amount++}.00`): Promise<string> {
    const batch = await gw
      .services()
      .importer.import({ source: textSource(`provider,amount,account\nbank-card-token,${value},token_success\n`), uploadedBy: 'key:up' });
    return batch.id;
  }
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
  const RESULT = `__typename ... on BatchError { code message } `;

  async function approve(id: string, payAt: string | null, key = 'ap') {
    const reply = await gw.gql(
      `mutation($id: ID!, $payAt: DateTime) { approveBatch(id: $id, payAt: $payAt) { ${RESULT} ... on ApproveBatchSuccess { batch { status payAt startedAt } } } }`,
      { id, payAt },
      apiKey(key),
    );
    return reply.body.data?.approveBatch ?? reply.body.errors;
  }
  async function reschedule(id: string, payAt: string, key = 'ap') {
    const reply = await gw.gql(
      `mutation($id: ID!, $payAt: DateTime!) { rescheduleBatch(id: $id, payAt: $payAt) { ${RESULT} ... on RescheduleBatchSuccess { batch { status payAt } } } }`,
      { id, payAt },
      apiKey(key),
    );
    return reply.body.data?.rescheduleBatch ?? reply.body.errors;
  }
  /** Makes a waiting batch due now, as the clock would. */
  const makeDue = (id: string) => db().batch.update({ where: { id }, data: { payAt: new Date(Date.now() - 1_000) } });

  describe('a batch approved with payAt', () => {
    it('waits SCHEDULED, and no worker claims its rows', async () => {
      const id = await uploaded();
      const payAt = inHours(2);
      expect(await approve(id, payAt)).toMatchObject({
        __typename: 'ApproveBatchSuccess',
        batch: { status: 'SCHEDULED', payAt, startedAt: null },
      });
      const claimed = await claimItems(gw.db.query, {
        owner: 'test',
        token: randomUUID(),
        leaseMs: 60_000,
        inFlight: [],
        batchId: id,
        limit: 10,
      });
      expect(claimed).toEqual([]);
      const audit = await db().auditEvent.findFirstOrThrow({ where: { batchId: id, action: 'batch.approve' } });
      expect(audit.detail).toMatchObject({ payAt });
    });

    it('is released once by racing sweeps when due, then pays', async () => {
      const id = await uploaded();
      await approve(id, inHours(1));
      expect(await releaseDueBatches(gw.db.query)).not.toContain(id);
      await makeDue(id);
      const released = (
        await Promise.all([releaseDueBatches(gw.db.query), releaseDueBatches(gw.db.query), releaseDueBatches(gw.db.query)])
      ).flat();
      expect(released.filter((batchId) => batchId === id)).toHaveLength(1);
      const running = await db().batch.findUniqueOrThrow({ where: { id } });
      expect(running.status).toBe('RUNNING');
      expect(running.startedAt).not.toBeNull();
      await testWorker(gw).drain(async () => (await db().batch.findUniqueOrThrow({ where: { id } })).status === 'COMPLETED', id);
      expect(await gw.sb.allEffects()).toEqual(expect.arrayContaining([expect.objectContaining({ paymentId: `${id}-2` })]));
    });

    it('is refused in words for a time past or beyond the horizon', async () => {
      const id = await uploaded();
      const past = await approve(id, new Date(Date.now() - 60_000).toISOString());
      expect(past).toMatchObject({ code: 'BATCH_PAY_AT_PAST' });
      expect(past.message).toMatch(/^the time to pay, \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC, has passed/);
      expect(past.message).not.toMatch(/T\d\d:/);
      const far = await approve(id, inHours(24 * 91));
      expect(far).toMatchObject({ code: 'BATCH_PAY_AT_TOO_FAR' });
      expect(far.message).toMatch(/more than 90 days ahead/);
      expect((await db().batch.findUniqueOrThrow({ where: { id } })).status).toBe('VALIDATED');
    });

    it('is rescheduled by the roles that approve, not the uploader, and audited', async () => {
      const id = await uploaded();
      const first = inHours(3);
      await approve(id, first);
      const later = inHours(30);
      expect(await reschedule(id, later)).toMatchObject({
        __typename: 'RescheduleBatchSuccess',
        batch: { status: 'SCHEDULED', payAt: later },
      });
      expect(await reschedule(id, inHours(4), 'op')).toEqual([
        expect.objectContaining({ message: expect.stringMatching(/Not authorized/) }),
      ]);
      expect(await reschedule(id, inHours(4), 'up')).toEqual([
        expect.objectContaining({ message: expect.stringMatching(/Not authorized/) }),
      ]);
      expect(await reschedule(id, new Date(Date.now() - 1_000).toISOString())).toMatchObject({ code: 'BATCH_PAY_AT_PAST' });
      const trail = await db().auditEvent.findMany({ where: { batchId: id, action: 'batch.reschedule' } });
      expect(trail).toEqual([expect.objectContaining({ actor: 'key:ap', detail: { from: first, to: later } })]);
    });

    it('cannot be rescheduled once it runs', async () => {
      const id = await uploaded();
      await approve(id, null);
      expect(await reschedule(id, inHours(2))).toMatchObject({ code: 'BATCH_NOT_SCHEDULED' });
    });

    it('is cancelled while it waits: nothing is paid, and the release leaves it', async () => {
      const id = await uploaded();
      await approve(id, inHours(5));
      const reply = await gw.gql(
        `mutation($id: ID!) { cancelBatch(id: $id) { __typename ... on CancelBatchSuccess { batch { status } } } }`,
        { id },
        apiKey('ad'),
      );
      expect(reply.body.data.cancelBatch.batch.status).toBe('CANCELLED');
      await makeDue(id);
      expect(await releaseDueBatches(gw.db.query)).not.toContain(id);
      const rows = await db().batchItem.findMany({ where: { batchId: id } });
      expect(rows.map((row) => row.status)).toEqual(['CANCELLED']);
      expect((await gw.sb.allEffects()).filter((p) => p.paymentId.startsWith(id))).toEqual([]);
    });

    it('is listed among the upcoming paydays, soonest first', async () => {
      const later = await uploaded();
      const sooner = await uploaded();
      await approve(later, inHours(50));
      await approve(sooner, inHours(40));
      const reply = await gw.gql(`{ upcomingPaydays { id status payAt } }`, {}, apiKey('op'));
      const ids = (reply.body.data.upcomingPaydays as Array<{ id: string }>).map((b) => b.id);
      expect(ids.indexOf(sooner)).toBeLessThan(ids.indexOf(later));
      expect(ids.indexOf(sooner)).toBeGreaterThanOrEqual(0);
      const metrics = await gw.http('/metrics', { headers: { authorization: `Bearer ${apiKey('ad')}` } });
      const sample = (series: string) =>
        Number(
          metrics.text
            .split('\n')
            .find((line) => line.startsWith(`${series} `))
            ?.slice(series.length + 1),
        );
      expect(sample('payout_batches_scheduled')).toBe(ids.length);
      expect(sample('payout_batches_scheduled_amount')).toBeGreaterThan(0);
      expect(sample('payout_batches_scheduled_short')).toBe(0);
    });

    it('weighs the balance in payAt order: a batch paying after another counts it, one paying before does not', async () => {
      await setSandboxBalance(gw, { set: '1000.00' });
      try {
        const first = await uploaded('600.00');
        expect(await approve(first, inHours(60))).toMatchObject({ batch: { status: 'SCHEDULED' } });
        const after = await uploaded('600.01');
        expect(await approve(after, inHours(61))).toMatchObject({ code: 'BATCH_INSUFFICIENT_FUNDS' });
        const before = await uploaded('600.02');
        expect(await approve(before, inHours(59))).toMatchObject({ batch: { status: 'SCHEDULED' } });
        for (const id of [first, after, before]) await db().batch.update({ where: { id }, data: { status: 'CANCELLED' } });
      } finally {
        await setSandboxBalance(gw, { set: '1000000.00' });
      }
    });

    it('reads a later batch’s forecast again when an earlier payroll is approved after it was read: the forecast says the later one is short', async () => {
      await setSandboxBalance(gw, { set: '1000.00' });
      const sweep = () => sweepSchedule({ query: gw.db.query, funds: gw.services().funds, logger: createLogger({ level: 'silent' }) });
      const forecastOf = async (id: string) =>
        (await gw.gql(`query($id: ID!) { batch(id: $id) { forecast { readAt shortfall { value } notice } } }`, { id }, apiKey('op'))).body
          .data.batch.forecast;
      const later = await uploaded('610.00');
      const earlier = await uploaded('610.01');
      try {
        expect(await approve(later, inHours(2))).toMatchObject({ batch: { status: 'SCHEDULED' } });
        expect(await sweep()).toContain(later);
        expect(await forecastOf(later)).toMatchObject({ shortfall: null });
        // Approval weighs only the batches paying no later than this one: the later payroll is not counted.
        expect(await approve(earlier, inHours(1))).toMatchObject({ batch: { status: 'SCHEDULED' } });
        expect(await sweep()).toEqual(expect.arrayContaining([earlier, later]));
        const forecast = await forecastOf(later);
        expect(Number(forecast.shortfall.value)).toBeGreaterThan(200);
        expect(forecast.notice).toMatch(/^short by /);
        expect(await forecastOf(earlier)).toMatchObject({ shortfall: null });
        const events = await db().auditEvent.findMany({ where: { batchId: later, action: 'batch.forecast-short' } });
        expect(events.map((event) => (event.detail as { when: string }).when)).toEqual(['forecast']);
        // Read once more, not at every sweep.
        expect(await sweep()).not.toContain(later);
      } finally {
        await setSandboxBalance(gw, { set: '1000000.00' });
        for (const id of [later, earlier]) await db().batch.update({ where: { id }, data: { status: 'CANCELLED' } });
      }
    });

    it('pauses a batch short at its release before any worker can claim a row of it', async () => {
      const id = await uploaded('7000.00');
      await approve(id, inHours(2));
      await setSandboxBalance(gw, { set: '100.00' });
      await makeDue(id);
      const real = gw.services().funds;
      const claim = () =>
        claimItems(gw.db.query, { owner: 'other-worker', token: randomUUID(), leaseMs: 60_000, inFlight: [], batchId: id, limit: 10 });
      // Another worker claims while this one reads the balance for the release (a partner call).
      const claimedMeanwhile: unknown[] = [];
      const funds = Object.create(real, {
        forRelease: { value: async (batchIds: string[]) => (claimedMeanwhile.push(...(await claim())), real.forRelease(batchIds)) },
      }) as typeof real;
      try {
        const released = await sweepSchedule({
          query: gw.db.query,
          funds,
          logger: createLogger({ level: 'silent' }),
          inTransaction: inTransactionOf(gw),
        });
        expect(released).toContain(id);
        expect(claimedMeanwhile).toEqual([]);
        const paused = await db().batch.findUniqueOrThrow({ where: { id } });
        expect([paused.status, paused.pauseReason, Number(paused.shortfall)]).toEqual(['PAUSED', 'FUNDS', expect.any(Number)]);
        expect(Number(paused.shortfall)).toBeGreaterThan(6800);
        expect(await claim()).toEqual([]);
        const audit = await db().auditEvent.findMany({ where: { batchId: id, action: 'batch.forecast-short' } });
        expect(audit.map((event) => (event.detail as { when: string }).when)).toEqual(['release']);
        expect((await gw.sb.allEffects()).filter((p) => p.paymentId.startsWith(id))).toEqual([]);
      } finally {
        await setSandboxBalance(gw, { set: '1000000.00' });
        await db().batch.update({ where: { id }, data: { status: 'CANCELLED' } });
      }
    });

    it('reads a forecast at its lead time (short: a notice and an audit event, not a failure), and pauses for funds at release when short', async () => {
      const id = await uploaded('5000.00');
      // Within the default lead time of 24 h: the forecast is due at once.
      await approve(id, inHours(2));
      await setSandboxBalance(gw, { set: '100.00' });
      const sweep = () => sweepSchedule({ query: gw.db.query, funds: gw.services().funds, logger: createLogger({ level: 'silent' }) });
      try {
        expect(await sweep()).toContain(id);
        const reply = await gw.gql(
          `query($id: ID!) { batch(id: $id) { status forecast { readAt shortfall { value } notice } } }`,
          { id },
          apiKey('op'),
        );
        const { status, forecast } = reply.body.data.batch;
        expect(status).toBe('SCHEDULED');
        expect(forecast.readAt).not.toBeNull();
        expect(Number(forecast.shortfall.value)).toBeGreaterThan(4900);
        expect(forecast.notice).toMatch(/^short by [\d,]+\.\d\d RUB for the payroll of \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC$/);
        // Read once per lead time: a second sweep does not read it again.
        expect(await sweep()).not.toContain(id);
        await makeDue(id);
        expect(await sweep()).toContain(id);
        const paused = await db().batch.findUniqueOrThrow({ where: { id } });
        expect([paused.status, paused.pauseReason]).toEqual(['PAUSED', 'FUNDS']);
        const events = await db().auditEvent.findMany({ where: { batchId: id, action: 'batch.forecast-short' }, orderBy: { id: 'asc' } });
        expect(events.map((event) => (event.detail as { when: string }).when)).toEqual(['forecast', 'release']);
        expect((await gw.sb.allEffects()).filter((p) => p.paymentId.startsWith(id))).toEqual([]);
      } finally {
        await setSandboxBalance(gw, { set: '1000000.00' });
        await db().batch.update({ where: { id }, data: { status: 'CANCELLED' } });
      }
    });
  });
});

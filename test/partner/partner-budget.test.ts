import { afterEach, describe, expect, it } from 'vitest';
import { batchStates } from '../../src/batch/index.ts';
import { textSource, tokenPayroll } from '../support/batch.ts';
import { testDatabaseKinds } from '../support/database.ts';
import { deployment, type Deployment } from '../support/deployment.ts';
import { eventually } from '../support/eventually.ts';
import { takeBudgetTimes } from '../../src/partner/budget/sql/budget-times.ts';

/**
 * Issue 41: one partner budget for every process on one database. Two workers (two
 * processes' runtimes on PostgreSQL; two workers of the one process PGlite allows) with a
 * budget of N calls in flight never have more than N at the partner, as the sandbox counts
 * them; and a 429's Retry-After met by one holds the other's calls too.
 */
const IN_FLIGHT = 3;
const ROWS = 40;

describe.each(testDatabaseKinds())('the partner budget, on $name', (kind) => {
  let current: Deployment | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });

  it(`keeps two workers to ${IN_FLIGHT} calls in flight at the partner together`, async () => {
    const d = (current = await deployment(
      kind,
      { PARTNER_CALLS_IN_FLIGHT: String(IN_FLIGHT), WORKER_CONCURRENCY: '8' },
      // Calls that last: without the budget each worker alone would have 8 at the partner at once.
      { faults: { latencyMs: 30 } },
    ));
    const [first] = d.runtimes;
    const batch = await first!.services.importer.import({ source: textSource(tokenPayroll(41, ROWS)), name: 'budget' });
    await first!.services.batches.approve(batch.id, { approver: 'anonymous' });
    for (const worker of d.workers) worker.start();
    await eventually(async () => {
      const done = await d.test.db.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } });
      expect(done.status).toBe(batchStates.completed);
    }, 120_000);
    const calls = d.sb.sandbox.testFeatures.calls();
    expect(calls.byKind.create).toBe(ROWS);
    expect(calls.peakInFlight).toBeLessThanOrEqual(IN_FLIGHT);
    // The budget was used, not merely unreached: calls overlapped up to it.
    expect(calls.peakInFlight).toBeGreaterThanOrEqual(2);
  });

  it("holds the other worker's calls through a 429's Retry-After", async () => {
    const d = (current = await deployment(kind, {}));
    const [a, b] = [d.runtimes[0]!, d.runtimes.at(-1)!];
    await d.sb.sandbox.outage.start({ mode: 'status', status: 429, retryAfterSeconds: 5, forMs: 600_000, kinds: ['balance'] });
    // A meets the 429 (Retry-After: 5) and, once its own wait is over, is served.
    const served = a.upstream.client.getBalance();
    // B is told (on PostgreSQL by a notice from A's process, as fast as NOTIFY goes; a process
    // that connects later reads what is left of the pause from "PartnerBudget").
    const pausedUntil = await eventually(() => {
      const until = b.budget.view().pausedUntil;
      expect(until).toBeGreaterThan(0);
      return until;
    });
    if (kind.name === 'postgresql') {
      const row = await d.test.db.prisma.partnerBudget.findFirstOrThrow();
      expect(row.pausedUntil!.getTime()).toBeGreaterThan(Date.now());
    }
    const throttledAt = Date.now();
    await d.sb.sandbox.outage.clear();
    // B asks during the pause: its call reaches the partner only after it.
    await b.upstream.client.getBalance();
    await served;
    const during = d.sb.sandbox.testFeatures.callsBetween(new Date(throttledAt).toISOString(), new Date(pausedUntil - 50).toISOString());
    expect(during.total).toBe(0);
    expect(d.sb.sandbox.testFeatures.calls().byKind.balance).toBe(3);
  });

  it('grants send times one after another on the database clock, each grant after the last', async () => {
    const d = (current = await deployment(kind, {}));
    const started = performance.now();
    const first = await takeBudgetTimes(d.test.db.query, 'agent-times', 5, 100);
    const second = await takeBudgetTimes(d.test.db.query, 'agent-times', 5, 100);
    const tookMs = performance.now() - started;
    // The first grant starts now; the second where the first's five times (100 ms apart) end,
    // less the time that passed between them (at most what both calls took).
    expect(first).toBeLessThan(1);
    expect(second).toBeLessThanOrEqual(first + 500);
    expect(second).toBeGreaterThanOrEqual(first + 500 - tookMs);
  });
});

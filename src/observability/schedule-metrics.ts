import { Gauge, type Registry } from 'prom-client';
import type { PrismaClient } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { batchStates } from '../batch/index.ts';

/**
 * Scheduled batches on /metrics (issue 30): how many wait, what they add up to, and how many
 * the last forecast found short. Read from the database when scraped (the whole database, not
 * this process), at most once per `cacheMs`.
 */
export function scheduleGauges(registers: Registry[], deps: { prisma: PrismaClient; logger: Logger }, cacheMs: number): void {
  let cached: { at: number; value: Promise<{ count: number; total: number; short: number }> } | undefined;
  const read = () => {
    if (cached === undefined || Date.now() - cached.at >= cacheMs) {
      const value = Promise.all([
        deps.prisma.batch.aggregate({ where: { status: batchStates.scheduled }, _count: { _all: true }, _sum: { totalAmount: true } }),
        deps.prisma.batch.count({ where: { status: batchStates.scheduled, forecastShortfall: { gt: 0 } } }),
      ]).then(([all, short]) => ({ count: all._count._all, total: all._sum.totalAmount?.toNumber() ?? 0, short }));
      cached = { at: Date.now(), value };
      value.catch(() => {
        if (cached?.value === value) cached = undefined;
      });
    }
    return cached.value;
  };
  const gauge = (name: string, help: string, pick: (figures: { count: number; total: number; short: number }) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const figures = await read().catch((error: unknown) => {
          deps.logger.warn({ err: error, metric: name }, 'metrics: could not read the scheduled batches');
          return undefined;
        });
        if (figures !== undefined) this.set(pick(figures));
      },
    });
  gauge('payout_batches_scheduled', 'Batches approved to pay later (SCHEDULED): nothing of them is sent before payAt.', (f) => f.count);
  // A gauge is a float: this is for a dashboard's scale, the API keeps the exact decimal.
  gauge('payout_batches_scheduled_amount', 'What the scheduled batches add up to, in RUB (their valid rows).', (f) => f.total);
  gauge(
    'payout_batches_scheduled_short',
    'Scheduled batches whose last forecast found the balance short (Batch.forecast): top up before payday.',
    (f) => f.short,
  );
}

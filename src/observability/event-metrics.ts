import { Counter, Gauge, type Registry } from 'prom-client';
import { sqlOf, type PrismaClient } from '../db/database.ts';
import type { Logger } from '../log/logger.ts';
import { undeliveredBySubscription, type DeliveryObserver } from '../outbound/index.ts';

/**
 * Outbound events' metrics. The one label that is an id is the subscription's: admins make
 * subscriptions, so they are few, and an alert has to say which receiver is behind.
 */
export class EventMetrics implements DeliveryObserver {
  private readonly deliveries: Counter<'subscription' | 'outcome'>;

  constructor(registry: Registry, deps: { prisma: PrismaClient; logger: Logger }) {
    const registers = [registry];
    this.deliveries = new Counter({
      name: 'payout_event_deliveries_total',
      help: 'Outbound event delivery attempts by this process, by subscription id and outcome (delivered, failed, timeout, redirect, refused-target, unreachable).',
      labelNames: ['subscription', 'outcome'],
      registers,
    });
    new Gauge({
      name: 'payout_event_oldest_undelivered_seconds',
      help: 'Per enabled subscription, how long ago the oldest event it has not yet taken happened; 0 when it has taken every one (the whole database).',
      labelNames: ['subscription'],
      registers,
      async collect() {
        const rows = await undeliveredBySubscription(sqlOf(deps.prisma)).catch((error: unknown) => {
          deps.logger.warn(
            { err: error, metric: 'payout_event_oldest_undelivered_seconds' },
            'metrics: could not read event subscriptions',
          );
          return undefined;
        });
        if (rows === undefined) return;
        this.reset();
        for (const row of rows)
          this.set({ subscription: row.id }, row.oldestAt === null ? 0 : Math.max(0, (Date.now() - row.oldestAt.getTime()) / 1000));
      },
    });
  }

  delivered(subscriptionId: string, outcome: string): void {
    this.deliveries.inc({ subscription: subscriptionId, outcome });
  }
}

import { DataKeyring, dataKeyFrom } from '../../src/crypto/data-keys.ts';
import { sqlOf, type Database } from '../../src/db/database.ts';
import type { ResolveAll } from '../../src/lib/internal-addresses.ts';
import { createLogger } from '../../src/log/logger.ts';
import {
  EventDeliverer,
  EventSender,
  EventSubscriptions,
  recordEvents,
  type NewEvent,
  type OutboundSettings,
} from '../../src/outbound/index.ts';
import { systemActor } from '../../src/audit/audit.ts';
import { TEST_DATA_KEY } from './card-data.ts';

export const keyring = new DataKeyring(dataKeyFrom(Buffer.from(TEST_DATA_KEY, 'base64')));

/** Settings that make a test's retries and cut-offs quick; nothing waits on them by time. */
export function testSettings(over: Partial<OutboundSettings> = {}): OutboundSettings {
  return {
    endpoints: { allowLocal: true },
    timeoutMs: 2_000,
    retryBaseMs: 10,
    retryMaxMs: 40,
    retryForMs: 3_600_000,
    secretOverlapMs: 3_600_000,
    logRetentionMs: 86_400_000,
    pollMs: 10,
    concurrency: 4,
    ...over,
  };
}

/** The outbound room on a test database: subscriptions, and deliverers made on demand. */
export function outboundRig(db: Database, settings: OutboundSettings = testSettings()) {
  const logger = createLogger({ level: 'silent' });
  const senders: EventSender[] = [];
  const deliverers: EventDeliverer[] = [];
  const sender = new EventSender(settings.endpoints, settings.timeoutMs);
  senders.push(sender);
  const subscriptions = new EventSubscriptions({ prisma: db.prisma, keyring, sender }, settings);
  return {
    subscriptions,
    deliverer(over: Partial<OutboundSettings> = {}, resolve?: ResolveAll) {
      const s = {
        ...settings,
        ...over,
        endpoints: { ...settings.endpoints, ...over.endpoints, ...(resolve === undefined ? {} : { resolve }) },
      };
      const own = new EventSender(s.endpoints, s.timeoutMs);
      senders.push(own);
      const deliverer = new EventDeliverer({ prisma: db.prisma, query: db.query, keyring, sender: own, logger }, s);
      deliverers.push(deliverer);
      return deliverer;
    },
    /** Events written as a state change writes them: in a transaction of their own. */
    async record(...events: NewEvent[]) {
      await db.prisma.$transaction(async (tx) => recordEvents(sqlOf(tx), events));
    },
    async close() {
      await Promise.all(deliverers.map((d) => d.stop()));
      await Promise.all(senders.map((s) => s.close()));
    },
  };
}

export const admin = { ...systemActor, actor: 'key:admin', role: 'admin' };

export function paid(line: number, batchId = 'b1'): NewEvent {
  return { type: 'batch_row.paid', subjectId: batchId, data: { batchId, line, paymentId: `p-${line}`, amount: '100.00', currency: 'RUB' } };
}

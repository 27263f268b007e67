import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { openRuntime } from '../src/app/runtime.ts';
import { loadGatewayConfig } from '../src/config/env.ts';
import { ensureDevKeyPair } from '../src/config/keys.ts';
import { createLogger } from '../src/log/logger.ts';
import { eventBody } from '../src/outbound/event-body.ts';
import { recordEvents } from '../src/outbound/index.ts';
import { signatureHeader, signingKeys } from '../src/outbound/signing.ts';
import { adminQuery } from './admin-query.ts';
import { startEventReceiverProcess, type EventReceiverProcess } from './event-receiver-process.ts';
import { report } from './report.ts';

/**
 * Delivery alone, on PostgreSQL: events already in the outbox, the deliverer started, its
 * process's CPU per event until the subscription's cursor has passed them all, for each
 * events-per-request setting. Beside it, the reference: the same number of signed POSTs of
 * the same bodies with undici alone, one after another, to the same receiver
 * (samples/event-receiver.mjs in its own process, verifying each).
 *
 *   npm run bench:deliver -- [--events 4000] [--per-request 1,10,50] [--admin-url postgres://…]
 */
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '4000' },
    'per-request': { type: 'string', default: '1,10,50' },
    'admin-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const events = Number(values.events);
const perRequest = values['per-request']!.split(',').map(Number);
const adminUrl = values['admin-url']!;
const dir = mkdtempSync(join(tmpdir(), 'payout-bench-deliver-'));
const admin = { actor: 'bench', role: 'admin', requestId: null };
const data = {
  batchId: randomUUID(),
  line: 1,
  paymentId: randomUUID(),
  status: 'COMPLETED',
  amount: '1234.56',
  currency: 'RUB',
  commission: '18.52',
  recipient: { pan: '220000******0004' },
};

async function main(): Promise<void> {
  const lines: string[] = [];
  try {
    const reference = await bareRequests();
    lines.push(`  undici alone, one signed POST per event: ${(reference * 1000).toFixed(0)} µs of CPU per request`);
    report({
      bench: 'deliver',
      name: 'undici alone: CPU per signed POST',
      value: Math.round(reference * 1000),
      unit: 'µs',
      target: '—',
      detail: `${events} requests, one after another, to the sample receiver`,
    });
    for (const per of perRequest) {
      const { cpuMsPerEvent, perSecond } = await deliverOnce(per);
      lines.push(
        `  deliverer, ${per === 1 ? 'one event per request' : `lists of ${per}`}: ${(cpuMsPerEvent * 1000).toFixed(0)} µs of CPU per event ` +
          `(${(cpuMsPerEvent / reference).toFixed(2)}× undici's request), ${Math.round(perSecond)} events/s`,
      );
      report({
        bench: 'deliver',
        name: `deliverer CPU per event, ${per === 1 ? 'one per request' : `lists of ${per}`}`,
        value: Math.round(cpuMsPerEvent * 1000),
        unit: 'µs',
        target: '—',
        detail: `${events} events on PostgreSQL; undici alone ${Math.round(reference * 1000)} µs per request; ${Math.round(perSecond)} events/s`,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\nevent delivery, ${events} events (load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}):\n${lines.join('\n')}`,
  );
}

/** The reference: CPU (ms) per signed POST of an event body with undici alone. */
async function bareRequests(): Promise<number> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const receiver = await startEventReceiverProcess(secret, join(dir, 'received-bare.txt'));
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  const keys = signingKeys([secret]);
  const post = async (i: number) => {
    const id = randomUUID();
    const body = eventBody({ id, type: 'batch_row.paid', occurredAt: new Date(), data }, i + 1);
    const timestamp = Math.floor(Date.now() / 1000);
    const answer = await request(receiver.url, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(keys, id, timestamp, body),
      },
      body,
    });
    await answer.body.dump();
  };
  try {
    for (let i = 0; i < 300; i++) await post(i); // warm the JIT and the connection
    const before = process.cpuUsage();
    for (let i = 300; i < 300 + events; i++) await post(i);
    const cpu = process.cpuUsage(before);
    if (receiver.count() < 300 + events) throw new Error(`the receiver verified ${receiver.count()} of ${300 + events} requests`);
    return (cpu.user + cpu.system) / 1000 / events;
  } finally {
    await agent.close();
    receiver.close();
  }
}

async function deliverOnce(eventsPerRequest: number): Promise<{ cpuMsPerEvent: number; perSecond: number }> {
  const dbName = `payout_bench_deliver_${process.pid}_${eventsPerRequest}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  await adminQuery(adminUrl, `CREATE DATABASE "${dbName}"`);
  const keys = ensureDevKeyPair(dir);
  const config = loadGatewayConfig({
    PAYOUT_AGENT_ID: 'bench',
    PAYOUT_API_TOKEN: 'bench-token',
    PAYOUT_WEBHOOK_SECRET: 'bench-secret',
    PAYOUT_API_URL: 'http://127.0.0.1:9/',
    PAYOUT_PRIVATE_KEY_FILE: keys.privateKeyFile,
    PAYOUT_DATA_KEY: randomBytes(32).toString('base64'),
    GATEWAY_API_KEYS: `${randomBytes(32).toString('hex')}:admin`,
    WORKER_IN_PROCESS: 'false',
    DATABASE_URL: dbUrl.toString(),
    EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true',
    EVENT_POLL_MS: '100',
  });
  const runtime = await openRuntime(config, createLogger({ level: 'silent' }));
  let receiver: EventReceiverProcess | undefined;
  try {
    const subscriptions = runtime.services.eventSubscriptions;
    const created = await subscriptions.create({ url: 'http://127.0.0.1:1/', eventsPerRequest }, admin);
    receiver = await startEventReceiverProcess(created.secret, join(dir, `received-per-${eventsPerRequest}.txt`));
    await subscriptions.update(created.subscription.id, { url: receiver.url }, admin);
    const { query } = runtime.db;
    for (let i = 0; i < events; i += 500) {
      const count = Math.min(500, events - i);
      await recordEvents(
        query,
        Array.from({ length: count }, (_, k) => ({
          type: 'batch_row.paid' as const,
          subjectId: data.batchId,
          data: { ...data, line: i + k + 1 },
        })),
      );
    }
    const before = process.cpuUsage();
    const started = performance.now();
    runtime.deliverer.start();
    // The cursor is read every 100 ms: waiting on the receiver's output here would count as delivery.
    while (
      Number((await query<{ sent: string }>(`SELECT ("nextSequence" - 1)::text AS sent FROM "EventSubscription"`, []))[0]?.sent ?? 0) <
      events
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cpu = process.cpuUsage(before);
    const seconds = (performance.now() - started) / 1000;
    await receiver.waitFor(events);
    return { cpuMsPerEvent: (cpu.user + cpu.system) / 1000 / events, perSecond: events / seconds };
  } finally {
    receiver?.close();
    await runtime.close();
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

await main();

import { randomInt } from 'node:crypto';
import { expect, it } from 'vitest';
import { batchStates } from '../../src/batch/index.ts';
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts';
import {
  checkRowEvents,
  countDeliveries,
  endEventsAndTotals,
  orderAgainstOutbox,
  readOutbox,
  sequenceBreaks,
} from '../support/event-delivery-audit.ts';
import { gqlAs } from '../support/fault-database.ts';
import { outcomeContradictions } from '../support/outcome-events.ts';
import { describeFaultSuite, SCENARIO_TIMEOUT_MS, until, useFaultScenario, type FaultRig } from '../support/fault-rig.ts';
import { payroll } from '../support/fault-payroll.ts';
import { describeViolations, reconcile } from '../support/fault-reconcile.ts';
import { atScale, counted } from '../support/fault-scale.ts';
import type { GatewayProcess } from '../support/gateway-process.ts';
import type { WorkerProcess } from '../support/processes.ts';

const batchEndStates: string[] = [batchStates.completed, batchStates.completedWithFailures];

const ADMIN = 'fault-suite-key';

/** Quick retries and polls, so a receiver coming back or a taken-over lease is served at once; nothing waits on them by time. */
const eventEnv = {
  EVENTS_ALLOW_LOCAL_ENDPOINTS: 'true',
  EVENT_POLL_MS: '50',
  EVENT_RETRY_BASE_MS: '50',
  EVENT_RETRY_MAX_MS: '500',
  // The subscription's lease is three of these plus 10 s: a killed deliverer's is taken over in 16 s.
  EVENT_DELIVERY_TIMEOUT_MS: '2000',
};

/** "At most a handful of times": a kill between a 2xx and the cursor's move sends one again, and kills are many. */
const HANDFUL = 5;

/**
 * The kills over the batch: the issue's 30 over 2,000 rows in CI (FAULT_SCALE=full), half of
 * each in npm test; the receiver is down from a quarter of the kills to a half.
 */
const KILLS = atScale({ quick: { rows: 1_000, kills: 15 }, full: { rows: 2_000, kills: 30 } });

/**
 * Issue 31: every process that delivers events (the workers and the gateway's own worker)
 * is SIGKILLed at random while a batch pays (2,000 rows in CI), some of them while holding the
 * subscription's lease, and the receiver is down for a while in the middle. Once the batch
 * has ended and the subscription's backlog is 0, the receiver has every event of the
 * outbox, first arrivals in (xid, seq) order with sequences 1..N, each resting row told
 * once, the batch's end once with the database's totals, repeats few and counted.
 */
describeFaultSuite('fault suite: outbound events while the gateway and workers are killed', () => {
  const scenario = useFaultScenario();

  it(
    `SIGKILL of workers and the gateway over ${counted(KILLS.rows)} rows, a receiver down for a while: no event lost, in order, few repeats`,
    async () => {
      const summary = scenario.summary(`events under SIGKILL x${KILLS.kills} over ${counted(KILLS.rows)} rows`);
      const receiver = await startEventReceiver();
      // A second subscription takes lists of up to 20 events per request, through the same kills (it is never down).
      const listReceiver = await startEventReceiver();
      try {
        await run(receiver, listReceiver, summary);
      } finally {
        await receiver.close();
        await listReceiver.close();
      }
    },
    SCENARIO_TIMEOUT_MS,
  );

  async function run(receiver: EventReceiver, listReceiver: EventReceiver, summary: ReturnType<typeof scenario.summary>): Promise<void> {
    const rig = await scenario.start({ webhooks: true, sandbox: { faults: { latencyMs: 20, jitterMs: 30 } }, workerEnv: eventEnv });
    let gateway = await startDeliveringGateway(rig);
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const reply = await gqlAs(gateway.url, ADMIN, query, variables);
      if (reply.errors !== undefined) throw new Error(JSON.stringify(reply.errors));
      return reply.data!;
    };
    const exited = () => rig.gatewayExits()[0] ?? rig.firstUnexpectedExit();

    // Subscribed before the batch: every type (no `types`), so its import and approval are sent too.
    const created = await gql(
      `mutation($url: String!) { createEventSubscription(input: { url: $url, description: "fault suite" }) {
        __typename ... on CreateEventSubscriptionSuccess { created { secret subscription { id } } } ... on Problem { code message } } }`,
      { url: receiver.url },
    );
    expect(created.createEventSubscription.__typename, JSON.stringify(created)).toBe('CreateEventSubscriptionSuccess');
    receiver.secrets.push(created.createEventSubscription.created.secret);
    const subscriptionId: string = created.createEventSubscription.created.subscription.id;
    const lists = await gql(
      `mutation($url: String!) { createEventSubscription(input: { url: $url, description: "fault suite, lists", eventsPerRequest: 20 }) {
        __typename ... on CreateEventSubscriptionSuccess { created { secret subscription { id } } } ... on Problem { code message } } }`,
      { url: listReceiver.url },
    );
    expect(lists.createEventSubscription.__typename, JSON.stringify(lists)).toBe('CreateEventSubscriptionSuccess');
    listReceiver.secrets.push(lists.createEventSubscription.created.secret);
    const listSubscriptionId: string = lists.createEventSubscription.created.subscription.id;

    const file = payroll(KILLS.rows, { success: 85, executeFailed: 4, createFailed: 3, inProgress: 6, inProgressFailed: 2 });
    const batch = await rig.importApproved(file.csv, 'events under SIGKILLs');
    for (let i = 0; i < 3; i++) rig.startWorker();

    const target = KILLS.kills;
    // Aimed at the target; the last kills can find the batch over (rows settle while a victim is chosen
    // and the receiver is down): 24 to 30 of 30 landed in runs at load 1 to 8. Fewer than half would no
    // longer test delivery through kills.
    const enoughKills = Math.ceil(target / 2);
    const killed = { eventLease: 0, rows: 0, gateway: 0 };
    let kills = 0;
    let killedSending = 0;
    let pauses = 0;
    // The receiver answers 503 from a quarter of the kills (the 8th of 30) until, from just past half of them (the 16th), it has refused enough and rows went on meanwhile.
    const outage = { from: Math.round(target / 4), to: Math.round(target / 2) + 1, refused: 0, settledWhileDown: 0, deliveredBefore: 0 };
    let down: { refusedBefore: number; settled: number } | undefined;
    const refused = () => receiver.requests() - receiver.received.length - receiver.unverified.length;

    while (kills < target) {
      const before = await rig.progress(batch.id);
      if (before.active === 0) break;
      // Kills are spread over about a third of the rows left: rows go on settling while a
      // victim is chosen, the gateway starts again and the receiver is down, and the 30th kill
      // must still land mid-batch.
      const share = Math.max(2, Math.floor(before.active / (3 * (target - kills) + 5)));
      const rows = randomInt(Math.ceil(share / 2), Math.ceil(share * 1.5) + 1);
      await until(
        `${rows} more rows to settle`,
        async () => {
          const now = await rig.progress(batch.id);
          return now.settled >= before.settled + rows || now.active === 0;
        },
        { abort: () => exited() ?? rig.noWorkerLeft(), diagnose: () => rig.diagnose(batch.id) },
      );

      if (kills === outage.from && down === undefined) {
        receiver.answer('fail');
        outage.deliveredBefore = receiver.received.length;
        down = { refusedBefore: refused(), settled: (await rig.progress(batch.id)).settled };
      }
      if (kills >= outage.to && down !== undefined) {
        // Down for a while: several refused attempts, and rows (so events) piled up behind them;
        // until then the kills go on.
        const now = await rig.progress(batch.id);
        if (refused() >= down.refusedBefore + 5 && now.settled >= down.settled + 150) {
          outage.refused = refused() - down.refusedBefore;
          outage.settledWhileDown = now.settled - down.settled;
          receiver.answer('ok');
          down = undefined;
        }
      }

      const victim = await pickVictim(rig, batch.id, gateway.process, kills % 10 === 4);
      if (victim === undefined) break;
      // Whatever it was chosen for, the victim may be the one sending events right now.
      if ((await eventLeaseHolderPid(rig, subscriptionId)) === victim.process.pid) killedSending += 1;
      if (victim.kind === 'gateway' || victim.process === gateway.process) {
        // Rows would go on settling for the seconds a gateway takes to start (hundreds of them
        // on a loaded machine, and the kills after would find the batch over): the batch is
        // paused across the restart, so the kills stay spread over it whatever the speed.
        const paused = await gql(`mutation($id: ID!) { pauseBatch(id: $id) { __typename } }`, { id: batch.id });
        await gateway.process.kill();
        gateway = await startDeliveringGateway(rig);
        if (paused.pauseBatch.__typename === 'PauseBatchSuccess') {
          const resumed = await gql(`mutation($id: ID!) { resumeBatch(id: $id) { __typename ... on Problem { code message } } }`, {
            id: batch.id,
          });
          if (resumed.resumeBatch.__typename === 'ResumeBatchSuccess') pauses += 1;
          else {
            // The rows in flight at the pause were its last ones (workers woken by the approval pay
            // faster than the kills come): a paused batch whose every row ended is over, not resumable.
            const over = await rig.prisma.batch.findUniqueOrThrow({ where: { id: batch.id } });
            expect(batchEndStates, JSON.stringify(resumed)).toContain(over.status);
            break;
          }
        }
      } else {
        await victim.process.kill();
        rig.startWorker();
      }
      killed[victim.kind] += 1;
      kills++;
      summary.set({ kills, killed: JSON.stringify(killed), killedSending, pausedForRestart: pauses });
    }
    if (down !== undefined) {
      const since = down;
      await until('the receiver to refuse several attempts', async () => refused() >= since.refusedBefore + 5, {
        abort: exited,
        diagnose: () => diagnoseEvents(rig, subscriptionId),
      });
      outage.refused = refused() - since.refusedBefore;
      outage.settledWhileDown = (await rig.progress(batch.id)).settled - since.settled;
      receiver.answer('ok');
    }
    summary.set({ outage: JSON.stringify(outage) });

    await rig.waitForBatchEnd(batch.id, { abort: exited });
    const result = await reconcile(rig, batch.id);
    summary.reconciled(result);

    // Every committed event taken: each subscription's cursor is past the outbox's last one.
    for (const id of [subscriptionId, listSubscriptionId]) {
      await until(
        `subscription ${id} to have no backlog`,
        async () => {
          const data = await gql(`{ eventSubscriptions { id backlog enabled } }`);
          const subscription = data.eventSubscriptions.find((s: { id: string }) => s.id === id);
          return subscription?.enabled === true && subscription.backlog === 0;
        },
        { abort: exited, diagnose: () => diagnoseEvents(rig, id), limitMs: 8 * 60_000 },
      );
    }

    const received = [...receiver.received];
    const counts = countDeliveries(received);
    const outbox = await readOutbox(rig);
    const firstBack = received[outage.deliveredBefore];
    summary.set({
      outboxEvents: outbox.length,
      eventsDistinct: counts.distinct,
      deliveries: counts.deliveries,
      eventDuplicates: counts.duplicates,
      maxDeliveriesPerEvent: counts.maxPerId,
      repeatsWithNewSequence: counts.repeatsWithNewSequence,
      deliveredAfterOutage: received.length - outage.deliveredBefore,
      firstBackSequence: firstBack?.sequence ?? '-',
      unverified: receiver.unverified.length,
    });
    const listReceived = [...listReceiver.received];
    const listCounts = countDeliveries(listReceived);
    summary.set({
      listRequests: listReceiver.requestSizes.length,
      largestList: Math.max(0, ...listReceiver.requestSizes),
      listDeliveries: listCounts.deliveries,
      listMaxDeliveriesPerEvent: listCounts.maxPerId,
    });
    const rowsCheck = await checkRowEvents(rig, batch.id, received);
    const end = await endEventsAndTotals(rig, batch.id, received);
    summary.set({ rowsAtRest: rowsCheck.rowsAtRest, rowEvents: rowsCheck.rowEvents, endEvents: end.ends.length });

    expect.soft(kills, `the batch ended before ${enoughKills} kills could land mid-work`).toBeGreaterThanOrEqual(enoughKills);
    expect.soft(killed.gateway, 'kills of the gateway process').toBeGreaterThan(0);
    expect.soft(killedSending, 'kills that took the subscription’s deliverer down while it held the lease').toBeGreaterThan(0);
    expect.soft(outage.refused, 'attempts the receiver refused while down').toBeGreaterThanOrEqual(5);
    expect.soft(rig.unexpectedExits(), 'worker processes that exited on their own').toEqual([]);
    expect.soft(rig.gatewayExits(), 'gateways that exited on their own').toEqual([]);
    expect.soft(receiver.unverified, 'deliveries that failed Standard Webhooks verification').toEqual([]);
    expect.soft(orderAgainstOutbox(received, outbox), 'every outbox event delivered, first arrivals in (xid, seq) order').toEqual([]);
    expect.soft(sequenceBreaks(received), 'sequences of first deliveries run 1..N without a gap').toEqual([]);
    expect.soft(counts.maxPerId, `no event delivered more than a handful of times (most: ${counts.maxId})`).toBeLessThanOrEqual(HANDFUL);
    expect.soft(listReceiver.unverified, 'lists that failed Standard Webhooks verification').toEqual([]);
    expect.soft(orderAgainstOutbox(listReceived, outbox), 'in lists: every outbox event delivered, first arrivals in order').toEqual([]);
    expect.soft(sequenceBreaks(listReceived), 'in lists: sequences of first deliveries run 1..N without a gap').toEqual([]);
    expect
      .soft(listCounts.maxPerId, `in lists: no event delivered more than a handful of times (most: ${listCounts.maxId})`)
      .toBeLessThanOrEqual(HANDFUL);
    expect
      .soft(Math.max(0, ...listReceiver.requestSizes), 'in lists: several events to a request, at most 20')
      .toSatisfy((n: number) => n > 1 && n <= 20);
    expect.soft(rowsCheck.problems, 'each resting row has exactly one resting event, of its status').toEqual([]);
    expect
      .soft(
        outcomeContradictions(received),
        'no final-outcome event is followed by another outcome of the same row (docs/decisions/0026-final-outcome-events.md)',
      )
      .toEqual([]);
    expect.soft(rowsCheck.rowsAtRest, 'every row came to rest').toBe(KILLS.rows);
    expect
      .soft(end.ends, 'the batch’s end event, once, with the database’s totals')
      .toEqual([{ type: `batch.${end.batchStatus.toLowerCase()}`, status: end.batchStatus, totals: end.database }]);
    // Finding (src/batch/events/sql/batch-end-events.ts): an empty sum is written "0", not
    // "0.00" (`COALESCE(sum(…), 0)::text`), so a batch with nothing held says heldAmount "0"
    // where docs/api/events.md shows money as "79.25" and money.ts's own parser refuses it.
    expect.soft(end.amountsNotMoney, 'FINDING: the end event’s amounts are money strings with two decimals').toEqual([]);
    expect(result.violations, describeViolations(result)).toEqual([]);
  }
});

/** The gateway as a deliverer too: its own worker (WORKER_IN_PROCESS) pays rows and sends events. */
function startDeliveringGateway(rig: FaultRig): Promise<{ process: GatewayProcess; url: string }> {
  return rig.startGateway({ WORKER_IN_PROCESS: 'true' });
}

type Victim =
  | { kind: 'eventLease'; process: WorkerProcess | GatewayProcess }
  | { kind: 'rows'; process: WorkerProcess }
  | { kind: 'gateway'; process: GatewayProcess };

/**
 * Half the kills take a process delivering events right now (either subscription's lease
 * holder, named by its pid) when one is; the gateway on its turn (the 5th, 15th, 25th kill) and
 * one in ten otherwise; the rest a worker holding rows.
 */
async function pickVictim(rig: FaultRig, batchId: string, gateway: GatewayProcess, gatewayTurn: boolean): Promise<Victim | undefined> {
  const draw = gatewayTurn ? 9 : randomInt(10);
  if (draw < 5) {
    // Only a process sending right now: the lease is let go between sends, and a dead holder's
    // lease stalls the subscription for 16 s, so waiting for one would outlast the batch.
    const pid = await eventLeaseHolderPid(rig);
    const holder = rig.liveWorkers().find((w) => w.pid === pid) ?? (gateway.alive && gateway.pid === pid ? gateway : undefined);
    if (holder !== undefined) return { kind: 'eventLease', process: holder };
  } else if (draw === 9 && gateway.alive) {
    return { kind: 'gateway', process: gateway };
  }
  const worker = await rig.workerHoldingRows(batchId, (candidates) => candidates[randomInt(candidates.length)]!);
  return worker === undefined ? undefined : { kind: 'rows', process: worker };
}

/** The pid in the lease owner (`host:pid:events:…`) of the process delivering to the subscription (or to either) now. */
async function eventLeaseHolderPid(rig: FaultRig, subscriptionId: string | null = null): Promise<number | undefined> {
  const [row] = await rig.prisma.$queryRaw<Array<{ owner: string }>>`
    SELECT "leaseOwner" AS owner FROM "EventSubscription"
    WHERE (${subscriptionId}::uuid IS NULL OR id = ${subscriptionId}::uuid) AND "leaseOwner" IS NOT NULL AND "leaseUntil" > now()
    ORDER BY random() LIMIT 1`;
  const pid = row === undefined ? undefined : /:(\d+):events:/.exec(row.owner)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

async function diagnoseEvents(rig: FaultRig, subscriptionId: string): Promise<string> {
  const subscription = await rig.prisma.$queryRaw<unknown[]>`
    SELECT enabled, "headSeq"::text, "headSequence"::text, "headAttempts", "failingSince", "nextAttemptAt", "leaseOwner", "leaseUntil", now() AS now
    FROM "EventSubscription" WHERE id = ${subscriptionId}::uuid`;
  const outcomes = await rig.prisma.$queryRaw<unknown[]>`
    SELECT outcome, count(*)::int AS n FROM "EventDeliveryAttempt" GROUP BY outcome`;
  const gateways = rig.gateways.map((g) => `  ${g.name} pid ${g.pid} ${g.alive ? 'running' : 'exited'}`).join('\n');
  return `subscription: ${JSON.stringify(subscription)}\nattempts: ${JSON.stringify(outcomes)}\ngateways:\n${gateways}\nworkers:\n${rig.workers.map((w) => `  ${w.describe()}`).join('\n')}`;
}

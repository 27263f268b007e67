import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { recordAudit, systemActor } from '../../audit/audit.ts';
import type { DataKeyring } from '../../crypto/data-keys.ts';
import { sqlOf, type PrismaClient, type SqlQuery } from '../../db/database.ts';
import { backoffDelay } from '../../lib/retry.ts';
import type { Logger } from '../../log/logger.ts';
import { eventBody, eventListBody } from '../event-body.ts';
import { openSecrets } from '../subscription-secrets.ts';
import { MAX_EVENTS_PER_REQUEST, WRITE_EVERY_MS, type OutboundSettings } from '../outbound-settings.ts';
import { recordEvents } from '../record-events.ts';
import { signingKeys, type SigningKey } from '../signing.ts';
import type { DeliveryResult, EventSender } from './send-event.ts';
import { claimSubscriptions, nextSubscriptionDueInMs, type ClaimedSubscription } from './sql/claim-subscriptions.ts';
import type { Attempt } from './sql/attempt-columns.ts';
import { headFailed } from './sql/fail-head.ts';
import { logAttempts } from './sql/log-attempts.ts';
import { windowDelivered, type WindowWrite } from './sql/mark-window-delivered.ts';
import { pruneDeliveryLog } from './sql/prune-delivery-log.ts';
import { releaseIdle } from './sql/release-idle.ts';
import { takeWindow, type WindowEvent } from './sql/take-window.ts';

/** Events taken from the outbox at a time: sent one after another, their writes made together; the longest list fits one. */
const WINDOW_EVENTS = MAX_EVENTS_PER_REQUEST;
/** Events sent to one subscription per claim before its lease is let go (and others get a turn). */
const EVENTS_PER_CLAIM = 500;
/** Room kept in the lease for the write after the last send. */
const LEASE_MARGIN_MS = 1_000;
/** The notice a statement recording events sends at its commit (prisma/migrations/…_outbound_event_notice). */
const OUTBOUND_NOTICE = 'outbound-events';
/** Without notices (a test's deliverer), how often an idle deliverer looks, at most. */
const NO_NOTICE_POLL_MS = 1_000;
/** After a round that found nothing, the next one no sooner than this, whatever the notices (they come with every statement that records events). */
const NOTICE_ROUND_MS = 1_000;
/** A due time already past: the least wait before the next round. */
const MIN_IDLE_MS = 20;
/** How often the delivery log is pruned, at most. */
const PRUNE_EVERY_MS = 60 * 60_000;

export interface DeliveryObserver {
  delivered(subscriptionId: string, outcome: DeliveryResult['outcome']): void;
}

/**
 * Delivers the outbox to subscriptions, in every worker process (and the gateway's own
 * worker): each subscription is leased to one deliverer at a time, fenced by a token as rows
 * are, so its events go out one after another in (xid, seq) order. A failed event is
 * retried with backoff until a 2xx, and later events wait behind it
 * (docs/decisions/0022-outbound-events.md).
 */
export class EventDeliverer {
  readonly owner = `${hostname()}:${process.pid}:events:${randomUUID().slice(0, 8)}`;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** A notice came while a round was running: the next wait returns at once. */
  private woken = false;
  private lastPrune = 0;
  /** Whether the current wait ends at a notice (not during the cool-down after an empty round). */
  private noticesWake = false;
  private readonly onNotice = () => {
    this.woken = true;
    if (this.noticesWake) this.wake?.();
  };

  constructor(
    private readonly deps: {
      prisma: PrismaClient;
      query: SqlQuery;
      keyring: DataKeyring;
      sender: EventSender;
      logger: Logger;
      observer?: DeliveryObserver;
      /**
       * Where the database's notices arrive (the runtime's event target): a statement that
       * records events tells every deliverer at its commit ("outbound-events", a trigger of
       * the outbound_event_notice migration), so an idle one sleeps instead of polling.
       */
      notices?: EventTarget | undefined;
    },
    private readonly settings: OutboundSettings,
  ) {}

  private get leaseMs(): number {
    // Long enough for a cut-off attempt and its writes, renewed with each event delivered; a
    // deliverer killed mid-send holds its subscription this long. Expiring early costs a repeat
    // (another deliverer sends the head again), never the order: every write is fenced.
    return this.settings.timeoutMs * 2 + 5_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.deps.notices?.addEventListener(OUTBOUND_NOTICE, this.onNotice);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.deps.notices?.removeEventListener(OUTBOUND_NOTICE, this.onNotice);
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let sent = 0;
      let waitMs = this.settings.pollMs;
      this.woken = false;
      try {
        sent = await this.tick();
        if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
          this.lastPrune = Date.now();
          await pruneDeliveryLog(this.deps.query, this.settings.logRetentionMs);
        }
        // Without a notice, the next attempt due (a retry's backoff, a lease's end) or the safety poll.
        if (sent === 0 && this.deps.notices !== undefined) waitMs = await this.untilDue();
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'event delivery: a round failed; trying again');
        waitMs = Math.min(waitMs, NO_NOTICE_POLL_MS);
      }
      if (sent === 0 && this.running) {
        const emptyAt = Date.now();
        await this.idle(this.deps.notices === undefined ? Math.min(waitMs, NO_NOTICE_POLL_MS) : waitMs, true);
        // Every statement that records events notifies (a paying worker's every group of rows): an
        // empty round answers them at most once a second, as the poll did, not a round per group.
        const rest = emptyAt + NOTICE_ROUND_MS - Date.now();
        if (rest > 0 && this.running) await this.idle(rest, false);
      }
    }
  }

  private async untilDue(): Promise<number> {
    const due = await nextSubscriptionDueInMs(this.deps.query);
    return due === null ? this.settings.pollMs : Math.min(this.settings.pollMs, Math.max(MIN_IDLE_MS, Math.ceil(due)));
  }

  /** Waits `ms`, or until stop(); with `byNotice`, until a notice too (at once if one came meanwhile). */
  private idle(ms: number, byNotice: boolean): Promise<void> {
    if (byNotice && this.woken) return Promise.resolve();
    this.noticesWake = byNotice;
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.noticesWake = false;
        resolve();
      }
      this.wake = done;
    });
  }

  /** One round: the due subscriptions this deliverer can take, each served until it is idle or fails. Returns events delivered. */
  async tick(): Promise<number> {
    const claimedAt = performance.now();
    const claimed = await claimSubscriptions(this.deps.query, this.owner, this.leaseMs, this.settings.concurrency);
    const counts = await Promise.all(claimed.map((subscription) => this.serve(subscription, claimedAt)));
    return counts.reduce((a, b) => a + b, 0);
  }

  /**
   * Sends a subscription's events window by window. What a window delivered is written in one
   * statement every writeEveryMs (250) and at its end (mark-window-delivered.ts): a deliverer killed
   * before that write has its events sent again by the next, with the same sequence numbers.
   * A send starts only if its timeout ends inside the lease, so no other deliverer can take
   * the subscription while one of its events is in flight.
   */
  private async serve(subscription: ClaimedSubscription, claimedAt: number): Promise<number> {
    const { query, sender, observer } = this.deps;
    const { id, leaseToken: token } = subscription;
    const leaseMs = this.leaseMs;
    const writeEveryMs = this.settings.writeEveryMs ?? WRITE_EVERY_MS;
    let leaseFrom = claimedAt;
    let delivered = 0;
    // The secrets are read with each window (a rotation signs the next one) but opened again
    // only when they changed: decrypting them per event was a tenth of delivery's CPU.
    let opened: { sealed: string; keys: SigningKey[] } | undefined;
    while (this.running && delivered < EVENTS_PER_CLAIM) {
      const limit = Math.min(WINDOW_EVENTS, EVENTS_PER_CLAIM - delivered);
      const window = await takeWindow(query, id, token, limit);
      if (window === undefined) return delivered;
      if (window.events.length === 0) break;
      const { signing } = window;
      const previous = signing.previousValid ? signing.previousSecret : null;
      const sealed = `${sealTag(signing.secret)}|${sealTag(previous)}`;
      if (opened?.sealed !== sealed) opened = { sealed, keys: signingKeys(openSecrets(this.deps.keyring, id, signing.secret, previous)) };
      const { keys } = opened;

      let sequence = window.firstSequence;
      let last: WindowEvent | undefined;
      const pending: Attempt[] = [];
      let writtenAt = performance.now();
      const write = async (): Promise<WindowWrite> => {
        if (last === undefined || pending.length === 0) return 'moved';
        const startedAt = performance.now();
        const written = await windowDelivered(
          query,
          id,
          token,
          leaseMs,
          { xid: last.xid, seq: last.seq, nextSequence: sequence },
          pending.splice(0),
        );
        leaseFrom = startedAt;
        writtenAt = performance.now();
        return written;
      };
      // One event per request, or a list of up to eventsPerRequest for a receiver that takes them.
      const per = subscription.eventsPerRequest;
      windowLoop: for (let start = 0; start < window.events.length; start += per) {
        if (!this.running) break;
        const now = performance.now();
        if (
          pending.length > 0 &&
          (now - writtenAt >= writeEveryMs || now + this.settings.timeoutMs + LEASE_MARGIN_MS > leaseFrom + leaseMs)
        ) {
          const written = await write();
          if (written === 'fenced') return delivered;
          // A replay moved the cursor back (the rest of this window comes again in its order), or
          // an admin turned the subscription off (the rest waits until it is on again).
          if (written !== 'moved') break windowLoop;
        }
        const chunk = window.events.slice(start, start + per).map((event, i) => ({ event, sequence: sequence + i }));
        const head = chunk[0]!;
        const headAttempt = start === 0 && window.headSeq === head.event.seq ? window.headAttempts + 1 : 1;
        const message = per === 1 ? { id: head.event.id, body: eventBody(head.event, head.sequence) } : eventListBody(chunk, new Date());
        const result = await sender.send({ url: subscription.url, ...message, keys });
        const logged = chunk.map(({ event, sequence }, i): Attempt => ({
          eventId: event.id,
          eventType: event.type,
          sequence,
          attempt: i === 0 ? headAttempt : 1,
          ...result,
        }));
        for (const _ of chunk) observer?.delivered(id, result.outcome);
        if (result.outcome !== 'delivered') {
          const written = await write();
          if (written === 'fenced') return delivered;
          await logAttempts(query, id, logged);
          // After a replay's rewind this event is no longer the one at the head: the replay starts
          // now. Turned off: the failure is logged, the lease let go.
          if (written !== 'moved') break windowLoop;
          await this.failed(subscription, { seq: head.event.seq, sequence: head.sequence }, headAttempt, result);
          return delivered;
        }
        pending.push(...logged);
        last = chunk.at(-1)!.event;
        sequence += chunk.length;
        delivered += chunk.length;
      }
      if ((await write()) === 'fenced') return delivered;
    }
    await releaseIdle(query, id, token, 0);
    return delivered;
  }

  private async failed(
    subscription: ClaimedSubscription,
    head: { seq: string; sequence: number },
    attempt: number,
    result: DeliveryResult,
  ): Promise<void> {
    // The one schedule (lib/retry.ts, full jitter): the head's n-th failure waits up to
    // EVENT_RETRY_BASE_MS·2^(n-1), capped at EVENT_RETRY_MAX_MS.
    const delayMs = backoffDelay(attempt - 1, { baseMs: this.settings.retryBaseMs, maxMs: this.settings.retryMaxMs });
    await this.deps.prisma.$transaction(async (tx) => {
      const query = sqlOf(tx);
      const outcome = await headFailed(query, subscription.id, subscription.leaseToken, head, delayMs, this.settings.retryForMs);
      if (outcome?.disabledNow !== true || outcome.failingSince === null) return;
      await recordEvents(query, [
        {
          type: 'event_subscription.disabled',
          subjectId: subscription.id,
          data: {
            subscriptionId: subscription.id,
            url: subscription.url,
            failingSince: outcome.failingSince.toISOString(),
            lastOutcome: result.outcome,
            lastStatusCode: result.statusCode,
          },
        },
      ]);
      await recordAudit(tx, systemActor, {
        action: 'events.disable',
        detail: { subscriptionId: subscription.id, lastOutcome: result.outcome },
      });
      this.deps.logger.warn(
        { subscriptionId: subscription.id, failingSince: outcome.failingSince, lastOutcome: result.outcome },
        'event subscription turned off: failing for EVENT_RETRY_FOR_MS',
      );
    });
  }
}

/** A sealed secret's authentication tag: it differs for every sealing, so it names the secret. */
function sealTag(sealed: unknown): string {
  return sealed !== null && typeof sealed === 'object' && typeof (sealed as { tag?: unknown }).tag === 'string'
    ? (sealed as { tag: string }).tag
    : '';
}

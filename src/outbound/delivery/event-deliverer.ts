import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { recordAudit, systemActor } from '../../audit/audit.ts';
import type { DataKeyring } from '../../crypto/data-keys.ts';
import { sqlOf, type PrismaClient, type SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { eventBody } from '../event-body.ts';
import { openSecrets } from '../event-subscriptions.ts';
import type { OutboundSettings } from '../outbound-settings.ts';
import { recordEvents } from '../record-events.ts';
import { retryDelayMs } from './backoff.ts';
import type { DeliveryResult, EventSender } from './send-event.ts';
import { claimSubscriptions, type ClaimedSubscription } from './sql/claim-subscriptions.ts';
import { logAttempt, pruneDeliveryLog } from './sql/delivery-log.ts';
import { deliveredAndNext, headFailed, readEvent, releaseIdle, takeNextHead, type NextHead } from './sql/head-writes.ts';

/** Events sent to one subscription per claim before its lease is let go (and others get a turn). */
const EVENTS_PER_CLAIM = 100;
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
  private lastPrune = 0;

  constructor(
    private readonly deps: { prisma: PrismaClient; query: SqlQuery; keyring: DataKeyring; sender: EventSender; logger: Logger; observer?: DeliveryObserver },
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
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let sent = 0;
      try {
        sent = await this.tick();
        if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
          this.lastPrune = Date.now();
          await pruneDeliveryLog(this.deps.query, this.settings.logRetentionMs);
        }
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'event delivery: a round failed; trying again');
      }
      if (sent === 0 && this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.settings.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** One round: the due subscriptions this deliverer can take, each served until it is idle or fails. Returns events delivered. */
  async tick(): Promise<number> {
    const claimed = await claimSubscriptions(this.deps.query, this.owner, this.leaseMs, this.settings.concurrency);
    const counts = await Promise.all(claimed.map((subscription) => this.serve(subscription)));
    return counts.reduce((a, b) => a + b, 0);
  }

  private async serve(subscription: ClaimedSubscription): Promise<number> {
    const { query } = this.deps;
    let head: NextHead | undefined;
    if (subscription.headSeq !== null && subscription.headSequence !== null) {
      const event = await readEvent(query, subscription.headSeq);
      head = event === undefined ? undefined : { event, sequence: subscription.headSequence, signing: subscription };
    }
    let attempts = subscription.headAttempts;
    let delivered = 0;
    // The secrets are read with each head (a rotation signs the very next event) but opened
    // again only when they changed: decrypting them per event was a tenth of delivery's CPU.
    let opened: { sealed: string; secrets: string[] } | undefined;
    while (this.running && delivered < EVENTS_PER_CLAIM) {
      head ??= await takeNextHead(query, subscription.id, subscription.leaseToken);
      if (head === undefined) break;
      const { signing } = head;
      const previous = signing.previousValid ? signing.previousSecret : null;
      const sealed = `${sealTag(signing.secret)}|${sealTag(previous)}`;
      if (opened?.sealed !== sealed) opened = { sealed, secrets: openSecrets(this.deps.keyring, subscription.id, signing.secret, previous) };
      const { secrets } = opened;
      const result = await this.deps.sender.send({ url: subscription.url, id: head.event.id, body: eventBody(head.event, head.sequence), secrets });
      this.deps.observer?.delivered(subscription.id, result.outcome);
      const attempt = { eventId: head.event.id, eventType: head.event.type, sequence: head.sequence, attempt: attempts + 1, ...result };
      if (result.outcome !== 'delivered') {
        await logAttempt(query, { subscriptionId: subscription.id, ...attempt, resend: false });
        await this.failed(subscription, attempts + 1, result);
        return delivered;
      }
      const { moved, next } = await deliveredAndNext(query, subscription.id, subscription.leaseToken, this.leaseMs, attempt);
      if (!moved) return delivered;
      delivered += 1;
      attempts = 0;
      head = next;
      // No next event ready: look once more before letting the lease go (one may have committed meanwhile).
      if (head === undefined) head = await takeNextHead(query, subscription.id, subscription.leaseToken);
      if (head === undefined) break;
    }
    await releaseIdle(query, subscription.id, subscription.leaseToken, 0);
    return delivered;
  }

  private async failed(subscription: ClaimedSubscription, attempt: number, result: DeliveryResult): Promise<void> {
    const delayMs = retryDelayMs(attempt, this.settings.retryBaseMs, this.settings.retryMaxMs);
    await this.deps.prisma.$transaction(async (tx) => {
      const query = sqlOf(tx);
      const outcome = await headFailed(query, subscription.id, subscription.leaseToken, delayMs, this.settings.retryForMs);
      if (outcome?.disabledNow !== true) return;
      await recordEvents(query, [
        {
          type: 'event_subscription.disabled',
          subjectId: subscription.id,
          data: { subscriptionId: subscription.id, url: subscription.url, failingSince: outcome.failingSince.toISOString(), lastOutcome: result.outcome, lastStatusCode: result.statusCode },
        },
      ]);
      await recordAudit(tx, systemActor, { action: 'events.disable', detail: { subscriptionId: subscription.id, lastOutcome: result.outcome } });
      this.deps.logger.warn({ subscriptionId: subscription.id, failingSince: outcome.failingSince, lastOutcome: result.outcome }, 'event subscription turned off: failing for EVENT_RETRY_FOR_MS');
    });
  }
}

/** A sealed secret's authentication tag: it differs for every sealing, so it names the secret. */
function sealTag(sealed: unknown): string {
  return sealed !== null && typeof sealed === 'object' && typeof (sealed as { tag?: unknown }).tag === 'string' ? (sealed as { tag: string }).tag : '';
}

import { randomBytes } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { PrismaClient } from '../db/database.ts';
import type { BatchItem, BatchItemStatus, Prisma } from '../db/generated/client.ts';
import type { Logger } from '../log/logger.ts';
import { sleep } from '../payout/backoff.ts';
import type { PayoutClient } from '../payout/client.ts';
import { PaymentConflictError, PaymentOutcomeUnknownError, PayoutApiError, PayoutError } from '../payout/errors.ts';
import type { Payment, PaymentPayload } from '../payout/models.ts';
import type { PaymentTracker } from '../payments/tracker.ts';
import { activeItemStatuses, type BatchService } from './batch-service.ts';
import type { BatchEvents } from './batch-events.ts';
import { RateLimiter } from './rate-limiter.ts';

export interface WorkerOptions {
  /** Items in flight at once, over all batches. */
  concurrency: number;
  /** Items in flight at once within one batch (at most `concurrency`). */
  perBatchConcurrency: number;
  /** Upstream calls per second at most; 0 for no cap. */
  ratePerSecond: number;
  /** How long a claim holds; a crashed worker's items are taken over after this. */
  leaseMs: number;
  /** Wait between looks for work when there is none. */
  pollMs: number;
  /** Transient failures (network, 5xx, 429, provider unavailable) retried per item before it is FAILED. */
  maxRetries: number;
  /** First retry delay; doubles with each retry, with jitter. */
  retryBaseMs: number;
}

export const defaultWorkerOptions: WorkerOptions = {
  concurrency: 8,
  perBatchConcurrency: 8,
  ratePerSecond: 0,
  leaseMs: 60_000,
  pollMs: 500,
  maxRetries: 5,
  retryBaseMs: 1_000,
};

export interface WorkerDeps {
  prisma: PrismaClient;
  client: PayoutClient;
  tracker: PaymentTracker;
  batches: BatchService;
  events: BatchEvents;
  webhookUrl: () => string | undefined;
  logger: Logger;
}

const IN_PROGRESS_FIRST_CHECK_MS = 2_000;
const IN_PROGRESS_MAX_CHECK_MS = 60_000;

/**
 * Pays batch items. Items are claimed from the database in one statement (FOR UPDATE
 * SKIP LOCKED) with a lease, so several workers share the work and a crashed worker's
 * items are resumed once its lease runs out. Each item's state is written before and
 * after every upstream call, and every write is conditional on the item still being in
 * the state this worker saw and leased: a cancelled or taken-over item is left alone.
 */
export class BatchWorker {
  readonly owner = `worker-${randomBytes(4).toString('hex')}`;
  private readonly options: WorkerOptions;
  private readonly global: LimitFunction;
  private readonly perBatch = new Map<string, LimitFunction>();
  private readonly rate: RateLimiter;
  private readonly inFlight = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private stopping = false;

  constructor(
    private readonly deps: WorkerDeps,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...defaultWorkerOptions, ...options };
    this.global = pLimit(this.options.concurrency);
    this.rate = new RateLimiter(this.options.ratePerSecond);
  }

  /** Works in the background until stop(). */
  start(): void {
    this.stopping = false;
    this.loop ??= this.run(async () => this.stopping).finally(() => {
      this.loop = undefined;
    });
  }

  /** Works until `done` says so (and nothing is in flight); for the CLI and tests. */
  async drain(done: () => Promise<boolean>): Promise<void> {
    await this.run(async () => this.stopping || (this.inFlight.size === 0 && (await done())));
  }

  /** Stops claiming and waits for the items in flight (each ends in a recorded state). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async run(finished: () => Promise<boolean>): Promise<void> {
    while (!(await finished())) {
      const free = this.options.concurrency - this.inFlight.size;
      const claimed = free > 0 && !this.stopping ? await this.claim(free) : [];
      for (const item of claimed) {
        const task = this.limitFor(item.batchId)(() => this.global(() => this.process(item)))
          .catch((error: unknown) => this.deps.logger.error({ err: error, paymentId: item.paymentId }, 'batch item failed unexpectedly; it resumes when its lease ends'))
          .finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
      }
      if (claimed.length === 0) {
        if (this.inFlight.size > 0) await Promise.race([...this.inFlight, sleep(this.options.pollMs)]);
        else await sleep(this.options.pollMs);
      }
    }
  }

  private limitFor(batchId: string): LimitFunction {
    let limit = this.perBatch.get(batchId);
    if (limit === undefined) {
      limit = pLimit(Math.min(this.options.perBatchConcurrency, this.options.concurrency));
      this.perBatch.set(batchId, limit);
    }
    return limit;
  }

  /** One statement: pick due items no one holds, lease them to this worker. */
  private async claim(limit: number): Promise<BatchItem[]> {
    const now = new Date();
    const leaseEnd = new Date(now.getTime() + this.options.leaseMs);
    const rows = await this.deps.prisma.$queryRaw<Array<{ id: bigint }>>`
      UPDATE "BatchItem" SET "leaseOwner" = ${this.owner}, "leaseExpiresAt" = ${leaseEnd}
      WHERE id IN (
        SELECT i.id FROM "BatchItem" i JOIN "Batch" b ON b.id = i."batchId"
        WHERE b.status IN ('RUNNING', 'CANCELLED')
          AND i.status IN ('PENDING', 'CREATING', 'READY', 'EXECUTING', 'IN_PROGRESS')
          AND (i."leaseExpiresAt" IS NULL OR i."leaseExpiresAt" < ${now})
          AND (i."notBefore" IS NULL OR i."notBefore" <= ${now})
        ORDER BY i."batchId", i.line
        LIMIT ${limit}
        FOR UPDATE OF i SKIP LOCKED)
      RETURNING id`;
    if (rows.length === 0) return [];
    return this.deps.prisma.batchItem.findMany({ where: { id: { in: rows.map((r) => r.id) } }, orderBy: { line: 'asc' } });
  }

  private async process(item: BatchItem): Promise<void> {
    try {
      switch (item.status) {
        case 'PENDING':
        case 'CREATING':
          await this.create(item);
          break;
        case 'READY':
          await this.execute(item, 'READY');
          break;
        case 'EXECUTING':
          await this.resumeExecute(item);
          break;
        case 'IN_PROGRESS':
          await this.settle(item);
          break;
        default:
          break;
      }
    } finally {
      await this.deps.prisma.batchItem.updateMany({
        where: { id: item.id, leaseOwner: this.owner },
        data: { leaseOwner: null, leaseExpiresAt: null },
      });
      // Only a row that reached its end can be the batch's last.
      if (!activeItemStatuses.includes(item.status)) await this.deps.batches.finishIfDone(item.batchId);
      this.deps.events.publish(item.batchId);
    }
  }

  private async create(item: BatchItem): Promise<void> {
    if (!(await this.move(item, item.status, { status: 'CREATING' }))) return;
    const payload = this.payloadOf(item);
    await this.deps.tracker.recordIntent({
      paymentId: item.paymentId,
      agentId: this.deps.client.agentId,
      payload,
      batchId: item.batchId,
      batchRow: item.line,
    });
    let payment: Payment;
    try {
      await this.rate.take();
      payment = (await this.deps.client.createPayment(item.paymentId, payload)).payment;
    } catch (error) {
      if (error instanceof PaymentOutcomeUnknownError || error instanceof PaymentConflictError) {
        if (error instanceof PaymentOutcomeUnknownError) {
          await this.deps.tracker.markLocal(item.paymentId, 'UNKNOWN', { code: error.code, message: error.message }, 'create');
        }
        await this.move(item, 'CREATING', review(error));
        return;
      }
      if (!(error instanceof PayoutError)) throw error;
      // The client settles lost answers by reading back: reaching here, nothing was created.
      await this.deps.tracker.markLocal(item.paymentId, 'REJECTED', { code: error.code, message: error.message }, 'create');
      await this.retryOrFail(item, 'CREATING', 'PENDING', error);
      return;
    }
    await this.deps.tracker.applyUpstream(item.paymentId, { status: payment.status, payment }, 'create');
    if (payment.status.value !== 'READY') {
      await this.move(item, 'CREATING', fromPayment(payment));
      return;
    }
    if (await this.move(item, 'CREATING', { status: 'READY', retries: 0, notBefore: null })) {
      await this.execute(item, 'READY');
    }
  }

  /** Only a payment known to be READY is executed; the state is EXECUTING before the call. */
  private async execute(item: BatchItem, from: 'READY' | 'EXECUTING'): Promise<void> {
    if (from === 'READY' && !(await this.startExecuting(item))) return;
    let payment: Payment;
    try {
      await this.rate.take();
      payment = (await this.deps.client.executePayment(item.paymentId)).payment;
    } catch (error) {
      if (error instanceof PaymentOutcomeUnknownError) {
        await this.deps.tracker.markLocal(item.paymentId, 'UNKNOWN', { code: error.code, message: error.message }, 'execute');
        await this.move(item, 'EXECUTING', review(error));
        return;
      }
      if (!(error instanceof PayoutError)) throw error;
      if (error instanceof PayoutApiError && !error.retryable) {
        // A refusal is an answer (not paid); only a payment the upstream cannot find is a puzzle.
        await this.move(item, 'EXECUTING', error.code === 'payout.payment.not-found' ? review(error) : failedWith(error));
        return;
      }
      // Every read said READY: not executed. Try again later, from READY.
      await this.retryOrFail(item, 'EXECUTING', 'READY', error);
      return;
    }
    await this.deps.tracker.applyUpstream(item.paymentId, { status: payment.status, payment }, 'execute');
    await this.move(item, 'EXECUTING', fromPayment(payment, item.retries));
  }

  /**
   * READY -> EXECUTING, only while the batch still runs: a batch cancelled while this row
   * was being created must not have it executed. Such a row ends CANCELLED instead.
   */
  private async startExecuting(item: BatchItem): Promise<boolean> {
    const changed = await this.deps.prisma.batchItem.updateMany({
      where: { id: item.id, status: 'READY', leaseOwner: this.owner, batch: { status: 'RUNNING' } },
      data: { status: 'EXECUTING' },
    });
    if (changed.count === 1) {
      item.status = 'EXECUTING';
      return true;
    }
    await this.move(item, 'READY', {
      status: 'CANCELLED',
      errorCode: 'batch.cancelled',
      errorMessage: 'the batch was cancelled before this payment was executed',
      finishedAt: new Date(),
    });
    return false;
  }

  /** After a crash between writing EXECUTING and recording the answer: read before anything else. */
  private async resumeExecute(item: BatchItem): Promise<void> {
    let payment: Payment;
    try {
      payment = await this.deps.client.getPayment(item.paymentId);
    } catch (error) {
      if (error instanceof PayoutApiError && error.code === 'payout.payment.not-found') {
        await this.move(item, 'EXECUTING', review(error));
        return;
      }
      if (!(error instanceof PayoutError)) throw error;
      await this.retryOrReview(item, 'EXECUTING', error);
      return;
    }
    await this.deps.tracker.applyUpstream(item.paymentId, { status: payment.status, payment }, 'read');
    if (payment.status.value === 'READY') await this.execute(item, 'EXECUTING');
    else await this.move(item, 'EXECUTING', fromPayment(payment, item.retries));
  }

  /** IN_PROGRESS: a webhook may already have settled it; otherwise read it back. */
  private async settle(item: BatchItem): Promise<void> {
    const tracked = await this.deps.tracker.find(item.paymentId);
    if (tracked !== null && ['COMPLETED', 'FAILED', 'EXPIRED'].includes(tracked.status)) {
      await this.move(item, 'IN_PROGRESS', {
        status: tracked.status as BatchItemStatus,
        errorCode: tracked.errorCode,
        errorMessage: tracked.errorMessage,
        billingDetails: (tracked.billingDetails ?? undefined) as Prisma.InputJsonValue | undefined,
        finishedAt: new Date(),
        notBefore: null,
      });
      return;
    }
    try {
      const payment = await this.deps.client.getPayment(item.paymentId);
      await this.deps.tracker.applyUpstream(item.paymentId, { status: payment.status, payment }, 'reconcile');
      await this.move(item, 'IN_PROGRESS', fromPayment(payment, item.retries + 1));
    } catch (error) {
      if (!(error instanceof PayoutError)) throw error;
      await this.move(item, 'IN_PROGRESS', { retries: item.retries + 1, notBefore: inProgressCheck(item.retries + 1) });
    }
  }

  private async retryOrFail(item: BatchItem, from: BatchItemStatus, back: 'PENDING' | 'READY', error: PayoutError): Promise<void> {
    if (error.retryable && item.retries < this.options.maxRetries) {
      await this.move(item, from, {
        status: back,
        retries: item.retries + 1,
        notBefore: new Date(Date.now() + this.retryDelay(item.retries)),
        errorCode: error.code,
        errorMessage: error.message,
      });
      return;
    }
    await this.move(item, from, failedWith(error));
  }

  private async retryOrReview(item: BatchItem, from: BatchItemStatus, error: PayoutError): Promise<void> {
    if (item.retries < this.options.maxRetries) {
      await this.move(item, from, { retries: item.retries + 1, notBefore: new Date(Date.now() + this.retryDelay(item.retries)) });
    } else {
      await this.move(item, from, review(error));
    }
  }

  private retryDelay(retries: number): number {
    const ceiling = this.options.retryBaseMs * 2 ** retries;
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  /** The write that guards everything: only if the item is still as this worker saw and leased it. */
  private async move(item: BatchItem, from: BatchItemStatus, data: Prisma.BatchItemUpdateManyMutationInput): Promise<boolean> {
    const changed = await this.deps.prisma.batchItem.updateMany({
      where: { id: item.id, status: from, leaseOwner: this.owner },
      data,
    });
    if (changed.count === 0) {
      this.deps.logger.info({ paymentId: item.paymentId, from }, 'batch item changed elsewhere (cancelled or taken over); leaving it');
      return false;
    }
    item.status = (data.status as BatchItemStatus | undefined) ?? item.status;
    return true;
  }

  private payloadOf(item: BatchItem): PaymentPayload {
    const webhookUrl = this.deps.webhookUrl();
    return {
      amount: { value: item.amount.toFixed(2), currency: item.currency as 'RUB' },
      recipientDetails: { providerCode: item.providerCode as PaymentPayload['recipientDetails']['providerCode'], fields: item.fields as Record<string, string> },
      ...(webhookUrl === undefined ? {} : { webhookUrl }),
      ...(item.customFields === null ? {} : { customFields: item.customFields as Record<string, string> }),
    };
  }
}

/** The item state a payment status means. */
function fromPayment(payment: Payment, checks = 0): Prisma.BatchItemUpdateManyMutationInput {
  const status = payment.status.value;
  const billing = payment.billingDetails === undefined ? {} : { billingDetails: payment.billingDetails };
  if (status === 'IN_PROGRESS') return { status: 'IN_PROGRESS', retries: checks, notBefore: inProgressCheck(checks), ...billing };
  if (status === 'READY' || status === 'CREATED') return { status: 'READY', notBefore: null };
  return {
    status,
    errorCode: payment.status.errorCode ?? null,
    errorMessage: payment.status.errorMessage ?? null,
    finishedAt: new Date(),
    notBefore: null,
    ...billing,
  };
}

function inProgressCheck(checks: number): Date {
  return new Date(Date.now() + Math.min(IN_PROGRESS_MAX_CHECK_MS, IN_PROGRESS_FIRST_CHECK_MS * 2 ** checks));
}

function failedWith(error: PayoutError): Prisma.BatchItemUpdateManyMutationInput {
  return { status: 'FAILED', errorCode: error.code, errorMessage: error.message, finishedAt: new Date(), notBefore: null };
}

function review(error: PayoutError): Prisma.BatchItemUpdateManyMutationInput {
  return { status: 'NEEDS_REVIEW', errorCode: error.code, errorMessage: error.message, finishedAt: new Date(), notBefore: null };
}


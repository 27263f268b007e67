import pLimit from 'p-limit';
import { sqlOf, type PrismaClient } from '../../db/database.ts';
import type { Batch, BatchItem } from '../../db/generated/client.ts';
import type { BatchItemStatus } from '../../db/generated/enums.ts';
import type { Logger } from '../../log/logger.ts';
import { recordAudit, type AuditActor } from '../../audit/audit.ts';
import { PaymentAttempts, type CreateOutcome } from '../../payments/attempt.ts';
import type { PaymentRecords } from '../../payments/payment-records.ts';
import type { PayoutClient } from '../../payout/client.ts';
import { paymentIdFor } from '../ids.ts';
import type { BatchEvents } from '../events/batch-events.ts';
import { BatchStateError } from '../lifecycle/batch-service.ts';
import { batchStates } from '../states/batch-states.ts';
import { SEALED } from '../card-data.ts';
import { redactCardNumbers } from '../../log/card-numbers.ts';
import {
  markSettlement,
  mayPayAgainAfter,
  reviewStatus,
  verdictOf,
  type ReviewedRowFacts,
  type ReviewMark,
  type ReviewVerdict,
  type RowSettlement,
} from '../states/review-states.ts';
import { restateReviewedBatch } from './sql/restate-reviewed-batch.ts';
import { scrubCardData } from '../rows/sql/scrub-card-data.ts';
import { settleReviewedRows, type ReviewedRowChange } from './sql/settle-reviewed-rows.ts';
import { decimalText } from '../../money/money-wire.ts';

/** The worker's code for a row held because its earlier payment turned out paid (pay/pay-row.ts previousAttemptNotPaid). */
export const previousAttemptCode = 'batch.previous-attempt';
/** A create that found its paymentId taken by a different payment (payout/errors.ts PaymentConflictError). */
const conflictCode = 'payout.payment.conflict';
/** Reads of one review in flight at once: a few, beside the workers' calls. */
const READS_AT_ONCE = 4;
export const MAX_REASON_LENGTH = 500;

export interface ReviewedRow {
  line: number;
  /** The payment read: the row's own, or for a previous-attempt row the earlier one. */
  paymentId: string;
  verdict: ReviewVerdict;
  /** The row's status after the review. */
  status: BatchItemStatus;
  message: string;
}

export interface ReviewReport {
  batch: Batch;
  rows: ReviewedRow[];
  /** Rows the review settled. */
  settled: number;
  /** Rows still NEEDS_REVIEW: for a later review, or a person's mark. */
  unsettled: number;
}

export interface MarkRequest {
  line: number;
  mark: ReviewMark;
  /** Why: mandatory, stored in the row's message and the audit trail (card numbers masked). */
  reason: string;
  /** Who asks, as stored in approvedBy: maker-checker compares the two. */
  caller: string;
  by: AuditActor;
}

/**
 * The way out of NEEDS_REVIEW (review-states.ts has the table). A review reads each such
 * row's payment again and settles what the answer proves; what stays unknown a person marks.
 * Reads only: nothing here ever creates or executes a payment. Row and batch moves go
 * through sql/settle-reviewed-rows.ts and sql/restate-reviewed-batch.ts, each with its
 * audit event in the same transaction; what a read taught about a payment is recorded by
 * the payments module (payment-records.ts).
 */
export class ReviewService {
  private readonly attempts: PaymentAttempts;

  constructor(
    private readonly deps: { prisma: PrismaClient; client: PayoutClient; records: PaymentRecords; events: BatchEvents; logger: Logger },
    private readonly options: { singleUser: boolean },
  ) {
    this.attempts = new PaymentAttempts(deps.client);
  }

  async review(batchId: string, by: AuditActor): Promise<ReviewReport> {
    await this.get(batchId);
    const rows = await this.deps.prisma.batchItem.findMany({ where: { batchId, status: reviewStatus }, orderBy: { line: 'asc' } });
    const limit = pLimit(READS_AT_ONCE);
    const read = await Promise.all(
      rows.map((row) =>
        limit(async () => {
          const target = paymentOf(row);
          const answer = await this.read(target.paymentId);
          return { row, target, answer, ...verdictOf(answer, facts(row)) };
        }),
      ),
    );
    const changes = read.flatMap(({ row, target, settlement }) => (settlement === null ? [] : [changeOf(row, target, settlement)]));
    const settledIds = await this.settle(batchId, changes, by.actor, async (tx, settled) => {
      for (const { row, target, verdict, answer } of read) {
        if (!settled.has(String(row.id))) continue;
        const upstream = 'payment' in answer ? answer.payment.status.value : null;
        await recordAudit(tx, by, {
          action: 'batch.review',
          batchId,
          paymentId: target.paymentId,
          detail: { line: row.line, paymentId: target.paymentId, verdict, upstream, from: row.errorCode },
        });
      }
    });
    const now = new Map(
      (
        await this.deps.prisma.batchItem.findMany({ where: { id: { in: rows.map((row) => row.id) } }, select: { id: true, status: true } })
      ).map((r) => [String(r.id), r.status]),
    );
    const reported = read.map(({ row, target, verdict, detail }) => ({
      line: row.line,
      paymentId: target.paymentId,
      verdict,
      status: now.get(String(row.id)) ?? row.status,
      message: detail,
    }));
    return {
      batch: await this.get(batchId),
      rows: reported,
      settled: settledIds.size,
      unsettled: reported.filter((r) => r.status === reviewStatus).length,
    };
  }

  /** A person's verdict on a row no read could settle. */
  async mark(batchId: string, request: MarkRequest): Promise<BatchItem> {
    const reason = redactCardNumbers(request.reason.trim());
    if (reason === '') throw new BatchStateError('review.reason-required', 'say why: a reason is required to mark a row');
    if (reason.length > MAX_REASON_LENGTH)
      throw new BatchStateError('review.reason-too-long', `the reason is longer than ${MAX_REASON_LENGTH} characters`);
    const batch = await this.get(batchId);
    // Maker-checker: the key that approved the batch does not also decide what became of its unknown rows.
    if (!this.options.singleUser && batch.approvedBy !== null && batch.approvedBy === request.caller) {
      throw new BatchStateError('second-person.required', 'a row under review must be marked by someone other than who approved the batch');
    }
    const row = await this.deps.prisma.batchItem.findFirst({ where: { batchId, line: request.line } });
    if (row === null) throw new BatchStateError('review.no-such-row', `batch ${batchId} has no row on line ${request.line}`);
    if (row.status !== reviewStatus)
      throw new BatchStateError('review.not-under-review', `line ${request.line} is ${row.status}, not ${reviewStatus}`);
    const target = paymentOf(row);
    if (request.mark === 'pay-again') await this.checkPayable(batch, row, target.paymentId);
    const label =
      request.mark === 'paid' ? 'marked paid' : request.mark === 'pay-again' ? 'marked not paid, to pay again' : 'marked not to be paid';
    const settlement = markSettlement(request.mark, `${label} by ${request.by.actor}: ${reason}`);
    const settled = await this.settle(batchId, [changeOf(row, target, settlement)], request.by.actor, async (tx) => {
      await recordAudit(tx, request.by, {
        action: 'batch.item.mark',
        batchId,
        paymentId: target.paymentId,
        detail: { line: row.line, paymentId: target.paymentId, mark: request.mark, reason, from: row.errorCode },
      });
    });
    if (settled.size === 0) throw new BatchStateError('batch.changed', 'the row changed meanwhile; look again');
    return this.deps.prisma.batchItem.findUniqueOrThrow({ where: { id: row.id } });
  }

  /** "Pay again" only on proof that the payment did not and will not pay: a read now, not an earlier one. */
  private async checkPayable(batch: Batch, row: BatchItem, paymentId: string): Promise<void> {
    if (batch.status === batchStates.cancelled) {
      throw new BatchStateError(
        'review.batch-cancelled',
        'the batch was cancelled: its rows are not paid again; mark it "do not pay" and pay it another way',
      );
    }
    if (!hasSealedRecipient(row.fields)) {
      throw new BatchStateError(
        'review.card-data-gone',
        'the row’s card data is gone (CARD_DATA_RETENTION_DAYS has passed): upload the row again to pay it',
      );
    }
    const answer = await this.read(paymentId);
    const { verdict, detail } = verdictOf(answer, facts(row));
    if (verdict === 'paid')
      throw new BatchStateError('review.paid-upstream', `the partner says ${paymentId} is COMPLETED: it was paid, and is not paid again`);
    if (verdict === 'in-progress')
      throw new BatchStateError('review.in-progress-upstream', `the partner says ${paymentId} is IN_PROGRESS: check again later`);
    if (verdict === 'created-not-executed')
      throw new BatchStateError('review.ready-upstream', `the partner says ${paymentId} is READY: ${detail}`);
    if (!mayPayAgainAfter(verdict))
      throw new BatchStateError(
        'review.unreadable',
        `${paymentId} could not be read now (${detail}); it is paid again only once a read shows it unpaid`,
      );
  }

  /** The changes with their audit events in one transaction, then the batch's status as the table says. */
  private async settle(
    batchId: string,
    changes: ReviewedRowChange[],
    by: string,
    audit: (tx: Parameters<Parameters<PrismaClient['$transaction']>[0]>[0], settled: Set<string>) => Promise<void>,
  ): Promise<Set<string>> {
    if (changes.length === 0) return new Set();
    const settled = await this.deps.prisma.$transaction(async (tx) => {
      const query = sqlOf(tx);
      const done = await settleReviewedRows(query, changes, by);
      if (done.size > 0) {
        await audit(tx, done);
        await restateReviewedBatch(query, batchId);
      }
      return done;
    });
    // A batch now COMPLETED keeps no card data; rows settled COMPLETED or CANCELLED gave theirs up above.
    await scrubCardData(sqlOf(this.deps.prisma), { batchIds: [batchId], retentionDays: null });
    this.deps.events.workArrived(batchId);
    return settled;
  }

  /** A read of the payment, its answer recorded on the payment's record (a fact either way). */
  private async read(paymentId: string): Promise<CreateOutcome> {
    const answer = await this.attempts.read(paymentId, undefined);
    if ('payment' in answer) {
      await this.deps.records
        .applyUpstream(paymentId, { status: answer.payment.status, payment: answer.payment }, 'read')
        .catch((error: unknown) => {
          this.deps.logger.warn({ err: error, paymentId }, 'could not record what a review read; the row is settled all the same');
        });
    }
    return answer;
  }

  private async get(batchId: string): Promise<Batch> {
    const batch = await this.deps.prisma.batch.findUnique({ where: { id: batchId } });
    if (batch === null) throw new BatchStateError('batch.not-found', `no batch ${batchId}`);
    return batch;
  }
}

/**
 * The payment a row's fate hangs on: its own, or, for a row held because its earlier attempt
 * turned out paid (or in progress), that earlier payment: the row's own id was never sent.
 */
function paymentOf(row: BatchItem): { paymentId: string; attempt: number } {
  if (row.errorCode === previousAttemptCode && row.attempt > 1) {
    return { paymentId: paymentIdFor(row.batchId, row.line, row.attempt - 1), attempt: row.attempt - 1 };
  }
  return { paymentId: row.paymentId, attempt: row.attempt };
}

function changeOf(row: BatchItem, target: { paymentId: string; attempt: number }, settlement: RowSettlement): ReviewedRowChange {
  return { id: String(row.id), fromPaymentId: row.paymentId, ...settlement, paymentId: target.paymentId, attempt: target.attempt };
}

function facts(row: BatchItem): ReviewedRowFacts {
  return {
    amount: decimalText(row.amount),
    currency: row.currency,
    providerCode: row.providerCode,
    conflict: row.errorCode === conflictCode,
  };
}

function hasSealedRecipient(fields: unknown): boolean {
  return typeof fields === 'object' && fields !== null && SEALED in fields;
}

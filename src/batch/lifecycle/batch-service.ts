import { DEFAULT_DUPLICATE_WINDOW_DAYS } from '../../config/env.ts';
import { sqlOf, type PrismaClient } from '../../db/database.ts';
import type { Batch } from '../../db/generated/client.ts';
import { BatchItemStatus } from '../../db/generated/enums.ts';
import {
  batchStates,
  canMove,
  cancellableStates,
  dismissableStates,
  pausableStates,
  pauseReasons,
  resumableStates,
  retryableStates,
} from '../states/batch-states.ts';
import { type FundsCheck } from '../funds/funds-check.ts';
import { requeueUnfunded } from '../funds/sql/requeue-unfunded.ts';
import { activeItemStatuses, cancelCodes, cancelledAtOnce, cancelledStatus, notSentItemStatuses } from '../states/row-states.ts';
import { cancelCreatedRows } from './sql/cancel-created-rows.ts';
import { untilNoSendInFlight } from './sends-in-flight.ts';
import { countRowsByStatus } from './sql/count-rows-by-status.ts';
import { finishBatches } from './sql/finish-batches.ts';
import { countRetryableRows, retryFailedRows } from './sql/retry-failed-rows.ts';
import { approvalNeedsValidRows, batchActions, type BatchAction } from '../states/batch-actions.ts';
import { scrubCardData } from '../rows/sql/scrub-card-data.ts';
import { BatchStateError, type BatchErrorCode } from './batch-error-codes.ts';
import type { BatchEvents } from '../events/batch-events.ts';
import { recordBatchEvent } from '../events/sql/record-batch-event.ts';
import { recordAudit, systemActor, type AuditActor } from '../../audit/audit.ts';
import type { Approvals } from '../../approval/approvals.ts';
import { retryableItemStatuses } from '../states/row-states.ts';
import { retryPolicyWords } from './retry-policy-words.ts';
import { approveBatch, countFileErrors, type ApproveRequest } from './approve-batch.ts';
import type { ScheduleSettings } from './batch-schedule.ts';
import { decimalText } from '../../money/money-wire.ts';

export { BatchStateError };

export interface StatusCount {
  status: BatchItemStatus;
  count: number;
  amount: string;
}

export interface BatchProgress {
  counts: StatusCount[];
  /** Rows finished per second since the run started. */
  throughput: number | null;
  /** Seconds until the remaining rows are done at that pace. */
  secondsLeft: number | null;
}

/**
 * Interactive transactions that touch every row of a batch (approve, resume, cancel,
 * retryFailed): on a 100,000-row batch and a loaded machine their statements take seconds,
 * and Prisma's default of 5 s rolled an approval of 10,000 rows back at load 4 (CI). A
 * minute for the work, half a minute to get a connection.
 */
const BATCH_WIDE_TRANSACTION = { timeout: 60_000, maxWait: 30_000 } as const;
/** How far back the time left looks for the pace of a running batch. */
const RECENT_PACE_SECONDS = 60;

/**
 * The batch lifecycle after import: approve (by someone other than the uploader unless
 * the deployment is single-user), cancel, pay failed rows again, and finishing a run. Which
 * state each step leaves from and goes to is batch-states.ts's table.
 */
export class BatchService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly events: BatchEvents,
    private readonly options: {
      singleUser: boolean;
      duplicateWindowDays?: number;
      /** Approval reads the balance against what approved batches still need (funds-check.ts); off without it. */
      funds?: FundsCheck;
      /** How far ahead an approval may set payAt, and when its forecast is read (batch-schedule.ts). */
      schedule?: ScheduleSettings;
      /** The approval policy (src/approval): approvals accumulate until it is met. Without it one approval starts the batch. */
      approvals?: Approvals;
    },
  ) {}

  /** One person may upload and approve (no keys, or GATEWAY_SINGLE_USER): the page asks, so it offers only what will be accepted. */
  get singleUser(): boolean {
    return this.options.singleUser;
  }

  private get windowDays(): number {
    return this.options.duplicateWindowDays ?? DEFAULT_DUPLICATE_WINDOW_DAYS;
  }

  /** Records an approval of the choice asked (approve-batch.ts); the batch starts once the policy is met for it. */
  async approve(batchId: string, request: ApproveRequest): Promise<Batch> {
    const { singleUser, funds, schedule, approvals } = this.options;
    const deps = {
      prisma: this.prisma,
      events: this.events,
      singleUser,
      windowDays: this.windowDays,
      funds,
      schedule,
      approvals,
      transaction: BATCH_WIDE_TRANSACTION,
    };
    return approveBatch(deps, await this.get(batchId), request);
  }

  /** Pauses a running batch: nothing new is sent until a person resumes it; calls in flight end their step. */
  async pause(batchId: string, by: AuditActor = systemActor): Promise<Batch> {
    const updated = await this.prisma.$transaction(async (tx) => {
      const changed = await tx.batch.updateMany({
        where: { id: batchId, status: { in: [...pausableStates] } },
        data: {
          status: batchStates.paused,
          pauseReason: pauseReasons.person,
          pausedAt: new Date(),
          pausedBy: by.actor,
          shortfall: null,
          fundsCheckAt: null,
        },
      });
      if (changed.count === 0)
        throw await this.refusal(tx, batchId, 'batch.not-pausable', (status) => `a ${status} batch cannot be paused`);
      await recordAudit(tx, by, { action: 'batch.pause', batchId, detail: {} });
      await recordBatchEvent(sqlOf(tx), 'batch.paused', batchId, { reason: pauseReasons.person, by: by.actor });
      return tx.batch.findUniqueOrThrow({ where: { id: batchId } });
      // A running batch's row is updated by the workers: under load the wait for it (or for a
      // pooled connection) can pass Prisma's 5 s default, as for the other changes here.
    }, BATCH_WIDE_TRANSACTION);
    this.events.publish(batchId);
    return updated;
  }

  /**
   * Resumes a paused batch, whoever or whatever paused it; rows that failed for lack of
   * funds are paid under new paymentIds (no money moved for them).
   */
  async resume(batchId: string, by: AuditActor = systemActor): Promise<Batch> {
    const updated = await this.prisma.$transaction(async (tx) => {
      const before = await tx.batch.findUnique({ where: { id: batchId }, select: { pauseReason: true, pausedBy: true, shortfall: true } });
      const changed = await tx.batch.updateMany({
        where: { id: batchId, status: { in: [...resumableStates] } },
        data: { status: batchStates.running, shortfall: null, fundsCheckAt: null },
      });
      if (changed.count === 0) throw await this.refusal(tx, batchId, 'batch.not-resumable', (status) => `a ${status} batch is not paused`);
      // Running again: rows that failed for lack of funds while it was paused (by anyone) are paid anew.
      const requeued = await requeueUnfunded(sqlOf(tx), [batchId]);
      await recordAudit(tx, by, {
        action: 'batch.resume',
        batchId,
        detail: {
          pauseReason: before?.pauseReason ?? null,
          pausedBy: before?.pausedBy ?? null,
          shortfall: decimalText(before?.shortfall),
          requeued,
        },
      });
      await recordBatchEvent(sqlOf(tx), 'batch.resumed', batchId, { by: by.actor, pausedFor: before?.pauseReason ?? null });
      return tx.batch.findUniqueOrThrow({ where: { id: batchId } });
    }, BATCH_WIDE_TRANSACTION);
    this.events.workArrived(batchId);
    return updated;
  }

  private async refusal(
    tx: Pick<PrismaClient, 'batch'>,
    batchId: string,
    code: BatchErrorCode,
    message: (status: string) => string,
  ): Promise<BatchStateError> {
    const batch = await tx.batch.findUnique({ where: { id: batchId }, select: { status: true } });
    return batch === null
      ? new BatchStateError('batch.not-found', `no batch ${batchId}`)
      : new BatchStateError(code, message(batch.status));
  }

  /** Stops every payment not yet sent, in every process; answers once none can leave (decision 0027). */
  async cancel(batchId: string, by: AuditActor = systemActor): Promise<Batch> {
    const batch = await this.get(batchId);
    if (!cancellableStates.includes(batch.status)) {
      throw new BatchStateError('batch.not-cancellable', `a ${batch.status} batch cannot be cancelled`);
    }
    const updated = await this.prisma.$transaction(async (tx) => {
      // A batch discarded before approval paid nothing: its file may be uploaded again.
      // Once approved, rows may have been paid, so the file stays taken.
      const discarded = batch.approvedAt === null;
      const changed = await tx.batch.updateMany({
        where: { id: batchId, status: batch.status },
        data: { status: batchStates.cancelled, cancelledAt: new Date(), ...(discarded ? { fileKey: null } : {}) },
      });
      if (changed.count === 0) throw new BatchStateError('batch.changed', 'the batch changed meanwhile; try again');
      // Rows not yet sent will not be paid. Rows being created or executed now are the
      // worker's to end (rows/sql/move-items.ts).
      const unsent = await tx.batchItem.updateMany({
        where: { batchId, status: cancelledAtOnce.notSent },
        data: { status: cancelledStatus, errorCode: cancelCodes.notSent, errorMessage: 'the batch was cancelled', finishedAt: new Date() },
      });
      // Rows created but not executed (READY) will not be paid either, but their payment exists
      // upstream until it expires there: the row says so, with the expiry, and the gateway
      // refuses to execute it (payments/payment-service.ts).
      const created = await cancelCreatedRows(sqlOf(tx), batchId);
      // Cancelling a batch that was never approved is discarding it (the clerk's page calls it so).
      const action = discarded ? 'batch.discard' : 'batch.cancel';
      await recordAudit(tx, by, {
        action,
        batchId,
        detail: { from: batch.status, rowsCancelled: unsent.count + created, rowsCreatedNotExecuted: created },
      });
      return tx.batch.findUniqueOrThrow({ where: { id: batchId } });
    }, BATCH_WIDE_TRANSACTION);
    this.events.workArrived(batchId);
    await untilNoSendInFlight(sqlOf(this.prisma), batchId);
    await this.finishIfDone(batchId);
    return updated.approvedAt === null ? updated : this.get(batchId);
  }

  /**
   * Takes a batch that paid nothing (rejected, or discarded before approval) off the list:
   * every bad upload leaves one behind. Only a mark (dismissedAt): the batch, its report and
   * the audit event stay, and the list shows it again when asked (batches(includeDismissed)).
   */
  async dismiss(batchId: string, by: AuditActor = systemActor): Promise<Batch> {
    const batch = await this.get(batchId);
    if (!dismissableStates.includes(batch.status) || batch.approvedAt !== null) {
      throw new BatchStateError(
        'batch.not-dismissable',
        `a ${batch.status} batch ${batch.approvedAt === null ? '' : 'that was approved '}cannot be dismissed`,
      );
    }
    if (batch.dismissedAt !== null) return batch;
    return this.prisma.$transaction(async (tx) => {
      const changed = await tx.batch.updateMany({
        where: { id: batchId, status: batch.status, dismissedAt: null },
        data: { dismissedAt: new Date(), dismissedBy: by.actor },
      });
      if (changed.count === 0) throw new BatchStateError('batch.changed', 'the batch changed meanwhile; try again');
      await recordAudit(tx, by, { action: 'batch.dismiss', batchId, detail: { status: batch.status, rows: batch.rowCount } });
      return tx.batch.findUniqueOrThrow({ where: { id: batchId } });
    });
  }

  /**
   * Pays FAILED and EXPIRED rows of a finished run again, each under a new paymentId
   * (`…-r2`, `…-r3`); NEEDS_REVIEW rows are left to a person. Only once the run has ended,
   * so no worker is still settling a row that this would reopen. The worker checks each
   * previous payment is still unpaid before paying the row again.
   */
  async retryFailed(batchId: string, by: AuditActor = systemActor): Promise<Batch> {
    const waiting = await this.prisma.$transaction(async (tx) => {
      const batch = await tx.batch.findUnique({ where: { id: batchId }, select: { uploadedBy: true, approvedBy: true } });
      // Paying rows again is approving them again: as with approve, not by who uploaded the
      // file, so one person can never both put rows in and send money for them (docs/api/graphql/access.md).
      if (!this.options.singleUser && batch?.uploadedBy != null && batch.uploadedBy === by.actor) {
        throw new BatchStateError('second-person.required', 'failed rows must be paid again by someone other than who uploaded the batch');
      }
      // Paying failed rows again is approving them again: above a tier, as many people as the policy asks for those rows.
      const ref = { batchId, uploadedBy: batch?.uploadedBy ?? null };
      const policy = await this.options.approvals?.approveRetry(
        tx,
        ref,
        retryableItemStatuses,
        { actor: by.actor, role: by.role ?? null },
        new Date(),
      );
      if (policy !== undefined && !policy.met) {
        await recordAudit(tx, by, {
          action: 'batch.retry',
          batchId,
          detail: { policyMet: false, approvals: policy.approvals.length, approvalsNeeded: policy.needed.count },
        });
        return policy;
      }
      const reopened = await tx.batch.updateMany({
        where: { id: batchId, status: { in: [...retryableStates] } },
        data: { status: batchStates.running, finishedAt: null },
      });
      if (reopened.count === 0) {
        const batch = await tx.batch.findUnique({ where: { id: batchId } });
        if (batch === null) throw new BatchStateError('batch.not-found', `no batch ${batchId}`);
        throw new BatchStateError(
          'batch.not-retryable',
          batch.status === batchStates.running
            ? 'the batch is still running; failed rows can be paid again once it has finished'
            : `failed rows of a ${batch.status} batch cannot be paid again`,
        );
      }
      // One statement for any number of rows, each under its next attempt's paymentId.
      const count = await retryFailedRows(sqlOf(tx), batchId, this.windowDays, by.actor);
      if (count === 0) {
        throw new BatchStateError(
          'batch.nothing-to-retry',
          'the batch has no FAILED or EXPIRED rows that can be paid again (card data is kept for CARD_DATA_RETENTION_DAYS; ' +
            'a row whose payee was paid the same amount by another approved batch since is not paid again)',
        );
      }
      await recordAudit(tx, by, {
        action: 'batch.retry',
        batchId,
        detail: { rows: count, uploadedBy: batch?.uploadedBy ?? null, approvedBy: batch?.approvedBy ?? null },
      });
      return undefined;
    }, BATCH_WIDE_TRANSACTION);
    // Committed: the approval counts when the next person asks.
    if (waiting !== undefined) throw new BatchStateError('second-person.required', retryPolicyWords(waiting));
    this.events.workArrived(batchId);
    return this.get(batchId);
  }

  /** Marks a RUNNING or CANCELLED batch finished once no row is still moving. */
  async finishIfDone(batchId: string): Promise<void> {
    const query = sqlOf(this.prisma);
    await finishBatches(query, [batchId]);
    // Rows cancelled here, and every row of a batch that has ended, keep only masked card data.
    await scrubCardData(query, { batchIds: [batchId], retentionDays: null });
    this.events.publish(batchId);
  }

  /** What a person can do to the batch now (Batch.actions): its state's moves, with the facts that weigh read only where they do. */
  async actions(batch: Batch): Promise<BatchAction[]> {
    const fileErrors = approvalNeedsValidRows(batch.status) ? await countFileErrors(this.prisma, batch.id) : 0;
    const retryableRows = retryableStates.includes(batch.status)
      ? await countRetryableRows(sqlOf(this.prisma), batch.id, this.windowDays)
      : 0;
    return batchActions({ ...batch, fileErrors, retryableRows });
  }

  async progress(batch: Batch): Promise<BatchProgress> {
    const groups = await countRowsByStatus(sqlOf(this.prisma), batch.id, RECENT_PACE_SECONDS);
    const counts = groups
      .map((g) => ({ status: g.status, count: g.count, amount: g.amount }))
      .sort((a, b) => a.status.localeCompare(b.status));
    const active = counts.filter((c) => activeItemStatuses.includes(c.status)).reduce((sum, c) => sum + c.count, 0);
    // Rows a cancel ended were never paid at any pace: the rate is of the rows that were.
    const finishedGroups = groups.filter(
      (g) => !activeItemStatuses.includes(g.status) && !notSentItemStatuses.includes(g.status) && g.status !== cancelledStatus,
    );
    const finished = finishedGroups.reduce((sum, g) => sum + g.count, 0);
    if (batch.startedAt === null) return { counts, throughput: null, secondsLeft: null };
    const now = groups[0]?.now ?? new Date();
    const seconds = ((batch.finishedAt ?? now).getTime() - batch.startedAt.getTime()) / 1000;
    const throughput = seconds > 0 ? finished / seconds : null;
    // The time left goes by the last minute's pace: the average since the start counts every
    // minute the batch waited (the partner down, the balance empty) and would say a batch that
    // pays again at full speed needs many times longer than it does.
    const recentSeconds = Math.min(RECENT_PACE_SECONDS, seconds);
    const recent = finishedGroups.reduce((sum, g) => sum + g.recent, 0);
    const pace = batch.finishedAt === null && recent > 0 && recentSeconds > 0 ? recent / recentSeconds : throughput;
    return {
      counts,
      throughput,
      secondsLeft: pace !== null && pace > 0 ? active / pace : active === 0 ? 0 : null,
    };
  }

  async get(batchId: string): Promise<Batch> {
    const batch = await this.prisma.batch.findUnique({ where: { id: batchId } });
    if (batch === null) throw new BatchStateError('batch.not-found', `no batch ${batchId}`);
    return batch;
  }
}

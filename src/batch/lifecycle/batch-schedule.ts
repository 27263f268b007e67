import { sqlOf, type PrismaClient } from '../../db/database.ts';
import { recordBatchEvent } from '../events/sql/record-batch-event.ts';
import type { Batch } from '../../db/generated/client.ts';
import type { BatchStatus } from '../../db/generated/enums.ts';
import { utcDateTime } from '../../money/readable-text.ts';
import { recordAudit, systemActor, type AuditActor } from '../../audit/audit.ts';
import { BatchStateError } from './batch-error-codes.ts';
import type { Approvals } from '../../approval/approvals.ts';
import { peopleInWords } from '../../approval/choice-words.ts';
import type { BatchEvents } from '../events/batch-events.ts';
import { batchStates, reschedulableStates } from '../states/batch-states.ts';

/** How far ahead a payroll may be scheduled (SCHEDULE_HORIZON_DAYS): the partner's tariffs and a payee's card rarely hold longer. */
export const DEFAULT_SCHEDULE_HORIZON_DAYS = 90;
const DAY_MS = 86_400_000;
/** SCHEDULE_FORECAST_LEAD_HOURS: the balance is read against a scheduled batch this long before its time. */
export const DEFAULT_FORECAST_LEAD_MS = 24 * 3_600_000;

/** How far ahead payAt may be, and how long before it the forecast is read. */
export interface ScheduleSettings {
  horizonDays?: number;
  forecastLeadMs?: number;
}

/** When the forecast of a batch paying at payAt is read: the lead time before it, or now when that has passed. */
function forecastAtFor(payAt: Date, now: Date, leadMs = DEFAULT_FORECAST_LEAD_MS): Date {
  return new Date(Math.max(now.getTime(), payAt.getTime() - leadMs));
}

/**
 * A payAt a person gave, checked against the clock: ahead of now, and no further than the
 * horizon. Refused in words that name both times, never in ISO 8601.
 */
export function checkPayAt(payAt: Date, now: Date, horizonDays = DEFAULT_SCHEDULE_HORIZON_DAYS): void {
  if (Number.isNaN(payAt.getTime())) throw new BatchStateError('batch.pay-at-invalid', 'the time to pay is not a date and time');
  if (payAt.getTime() <= now.getTime()) {
    throw new BatchStateError(
      'batch.pay-at-past',
      `the time to pay, ${utcDateTime(payAt)}, has passed (it is now ${utcDateTime(now)}); approve without one to pay now, or give a later time`,
    );
  }
  const latest = new Date(now.getTime() + horizonDays * DAY_MS);
  if (payAt.getTime() > latest.getTime()) {
    throw new BatchStateError(
      'batch.pay-at-too-far',
      `the time to pay, ${utcDateTime(payAt)}, is more than ${horizonDays} days ahead (the latest is ${utcDateTime(latest)})`,
    );
  }
}

/**
 * What an approval writes about when the batch starts: at once (RUNNING, startedAt now), or
 * at payAt (SCHEDULED; startedAt is set when a worker releases it, sql/release-due-batches.ts).
 * Checks payAt first, so an approval with a bad one changes nothing.
 */
export function approvedStart(
  payAt: Date | null | undefined,
  now: Date,
  settings: ScheduleSettings = {},
): { status: BatchStatus; startedAt: Date | null; payAt: Date | null; forecastAt: Date | null } {
  if (payAt === null || payAt === undefined) return { status: batchStates.running, startedAt: now, payAt: null, forecastAt: null };
  checkPayAt(payAt, now, settings.horizonDays);
  return { status: batchStates.scheduled, startedAt: null, payAt, forecastAt: forecastAtFor(payAt, now, settings.forecastLeadMs) };
}

/**
 * Moves a waiting batch's time to pay (the table's 'reschedule' step). As with approval, not
 * by who uploaded the batch unless the deployment is single-user: choosing when money leaves
 * is part of approving it. The GraphQL layer lets only the roles that may approve call it.
 */
export class BatchSchedule {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly events: BatchEvents,
    private readonly options: { singleUser: boolean; approvals?: Approvals } & ScheduleSettings,
  ) {}

  async reschedule(batchId: string, payAt: Date, by: AuditActor = systemActor): Promise<Batch> {
    const now = new Date();
    checkPayAt(payAt, now, this.options.horizonDays);
    const updated = await this.prisma.$transaction(async (tx) => {
      const batch = await tx.batch.findUnique({ where: { id: batchId } });
      if (batch === null) throw new BatchStateError('batch.not-found', `no batch ${batchId}`);
      if (!this.options.singleUser && batch.uploadedBy !== null && batch.uploadedBy === by.actor) {
        throw new BatchStateError('batch.same-person', 'a batch must be rescheduled by someone other than who uploaded it');
      }
      // Later only delays what the approvers agreed to; earlier than several people agreed to
      // would let money leave before their time on one person's word (issue 38, decision 0029).
      if (
        batch.payAt !== null &&
        batch.approvedAt !== null &&
        payAt.getTime() < batch.payAt.getTime() &&
        this.options.approvals !== undefined
      ) {
        const agreed = await this.options.approvals.startedWith(tx, {
          batchId,
          uploadedBy: batch.uploadedBy,
          approvedAt: batch.approvedAt,
        });
        if (agreed.length > 1) {
          throw new BatchStateError(
            'batch.earlier-needs-approvals',
            `${peopleInWords(agreed)} approved paying at ${utcDateTime(batch.payAt)}; an earlier time needs their approvals again: give a time no earlier, or cancel the batch and import its file again (force) for a new round of approvals`,
          );
        }
      }
      const changed = await tx.batch.updateMany({
        where: { id: batchId, status: { in: [...reschedulableStates] } },
        data: { payAt, forecastAt: forecastAtFor(payAt, now, this.options.forecastLeadMs) },
      });
      if (changed.count === 0) {
        throw new BatchStateError(
          'batch.not-scheduled',
          `only a scheduled batch can be rescheduled; this one is ${batch.status.toLowerCase().replaceAll('_', ' ')}`,
        );
      }
      await recordAudit(tx, by, {
        action: 'batch.reschedule',
        batchId,
        detail: { from: batch.payAt?.toISOString() ?? null, to: payAt.toISOString() },
      });
      await recordBatchEvent(sqlOf(tx), 'batch.scheduled', batchId, { by: by.actor, rescheduledFrom: batch.payAt?.toISOString() ?? null });
      return tx.batch.findUniqueOrThrow({ where: { id: batchId } });
    });
    this.events.workArrived(batchId);
    return updated;
  }

  /** Batches waiting to pay, soonest first. */
  async upcoming(): Promise<Batch[]> {
    return this.prisma.batch.findMany({ where: { status: batchStates.scheduled }, orderBy: [{ payAt: 'asc' }, { id: 'asc' }] });
  }
}

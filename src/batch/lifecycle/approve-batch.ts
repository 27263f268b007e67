import { sqlOf, type PrismaClient } from '../../db/database.ts';
import type { Batch } from '../../db/generated/client.ts';
import { BatchItemStatus } from '../../db/generated/enums.ts';
import { fromMinorUnits } from '../../money/money.ts';
import type { Approvals, BatchChoice } from '../../approval/approvals.ts';
import { choiceInWords, peopleInWords, pendingInWords } from '../../approval/choice-words.ts';
import { recordAudit, systemActor, type AuditActor } from '../../audit/audit.ts';
import { holdApprovedRepeats } from '../rows/sql/hold-approved-repeats.ts';
import { fundsForApproval } from './approval-funds.ts';
import { selectApprovalRows } from './approval-rows.ts';
import { BatchStateError } from './batch-error-codes.ts';
import type { BatchEvents } from '../events/batch-events.ts';
import { approvedStart, type ScheduleSettings } from './batch-schedule.ts';
import { approvalNeedsValidRows, approvalRefusal } from '../states/batch-actions.ts';
import { batchStates } from '../states/batch-states.ts';
import { registerApprovedPayees } from './sql/approved-payees.ts';
import { lockApprovals } from './sql/lock-approvals.ts';
import { recordBatchEvent } from '../events/sql/record-batch-event.ts';

export interface ApproveRequest {
  approver: string;
  validRowsOnly?: boolean;
  includeHeld?: boolean;
  includeChangedAccounts?: boolean;
  ignoreBalance?: boolean;
  payAt?: Date | null;
  /** Take the choice other approvers agreed to (their rows and time) as this approval's. */
  agree?: boolean;
  /** Approve another choice than the one awaiting more approvals: theirs stops counting (audited). */
  newRound?: boolean;
  by?: AuditActor;
}

export interface ApproveDeps {
  prisma: PrismaClient;
  events: BatchEvents;
  singleUser: boolean;
  windowDays: number;
  funds: Parameters<typeof fundsForApproval>[0];
  schedule: ScheduleSettings | undefined;
  approvals: Approvals | undefined;
  /** A minute for the work on every row of a large batch (batch-service.ts). */
  transaction: { timeout: number; maxWait: number };
}

/** Refuses an approval the batch cannot take, before anything is recorded: the words say what would work. */
async function checkApprovable(prisma: PrismaClient, batch: Batch, request: ApproveRequest, validRowsOnly: boolean): Promise<void> {
  // The approve-valid-rows rule (batch-actions.ts), which the page and the CLI ask too.
  const fileErrors = approvalNeedsValidRows(batch.status) ? await countFileErrors(prisma, batch.id) : 0;
  const refusal = approvalRefusal({ ...batch, fileErrors }, validRowsOnly);
  if (refusal === 'batch.rejected')
    throw new BatchStateError(refusal, 'the batch has errors; fix the file, or approve with validRowsOnly to pay only its valid rows');
  if (refusal === 'batch.not-approvable') throw new BatchStateError(refusal, `a ${batch.status} batch cannot be approved`);
  if (refusal === 'batch.file-errors') throw new BatchStateError(refusal, 'the file itself has errors; only row errors can be skipped');
  if (refusal === 'batch.no-valid-rows') throw new BatchStateError(refusal, 'no row can be paid');
  if (
    request.agree === true &&
    (request.payAt != null || request.includeHeld === true || request.includeChangedAccounts === true || request.newRound === true)
  ) {
    throw new BatchStateError(
      'batch.agree-with-choice',
      'agree takes the choice the other approvers made: give it alone, or give your own choice (with newRound) instead',
    );
  }
}

/**
 * `by` is who the audit trail names (audit/audit.ts); the event commits with the approval.
 * An approval records the whole choice (rows and when to pay) and counts only with those of
 * the same choice (decision 0029): once the policy is met, exactly those rows go, no earlier
 * than that time. Rows that repeat a batch approved since this one's import are held first
 * and the approval is refused, so that the approver sees them before anything is paid.
 */
export async function approveBatch(deps: ApproveDeps, batch: Batch, request: ApproveRequest): Promise<Batch> {
  const batchId = batch.id;
  if (!deps.singleUser && batch.uploadedBy !== null && batch.uploadedBy === request.approver) {
    throw new BatchStateError('batch.same-person', 'a batch must be approved by someone other than who uploaded it');
  }
  const now = new Date();
  const ref = { batchId, uploadedBy: batch.uploadedBy };
  let choice: BatchChoice = {
    includeHeld: request.includeHeld ?? false,
    includeChangedAccounts: request.includeChangedAccounts ?? false,
    validRowsOnly: request.validRowsOnly ?? false,
    payAt: request.payAt ?? null,
  };
  // The state alone: the rows are weighed below.
  if (approvalRefusal({ ...batch, fileErrors: 0 }, true) === 'batch.not-approvable') {
    throw new BatchStateError('batch.not-approvable', `a ${batch.status} batch cannot be approved`);
  }
  if (request.agree === true) {
    const pending = deps.approvals === undefined ? undefined : await deps.approvals.pending(deps.prisma, ref, now);
    if (pending === undefined)
      throw new BatchStateError('batch.nothing-to-agree', 'no approval of this batch awaits another: approve with your own choice');
    choice = pending.choice;
  }
  await checkApprovable(deps.prisma, batch, request, choice.validRowsOnly);
  // RUNNING now, or SCHEDULED for payAt. A time agreed earlier that has come since starts now;
  // one given now that is past, or too far ahead, is refused before anything is recorded.
  const due = request.agree === true && choice.payAt !== null && choice.payAt.getTime() <= now.getTime();
  const start = approvedStart(due ? null : choice.payAt, now, deps.schedule);
  const funds =
    request.ignoreBalance === true
      ? undefined
      : await fundsForApproval(deps.funds, batchId, choice.includeHeld || choice.includeChangedAccounts, start.payAt); // either kind of held row weighs as the page quotes it
  const by = request.by ?? systemActor;
  const outcome = await deps.prisma.$transaction(async (tx) => {
    // One approval at a time across every process: of two batches that repeat each other
    // approved at once, the second must see the first approved; of two people approving one
    // batch at once, the second sees the first's choice.
    const query = sqlOf(tx);
    await lockApprovals(query);
    // Also with includeHeld: that choice covers the rows the approver was shown, not rows that
    // repeat a batch approved since. Committed: the approver is shown them before anything is paid.
    const held = await holdApprovedRepeats(query, batchId, deps.windowDays);
    if (held > 0) return { held };
    const recorded = await deps.approvals?.approveBatch(
      tx,
      ref,
      choice,
      { actor: request.approver, role: by.role ?? null },
      now,
      request.newRound ?? false,
    );
    if (recorded?.kind === 'differs') {
      const mine = choiceInWords(choice, { count: recorded.rows.rows, total: recorded.rows.total }, batch.currency);
      throw new BatchStateError(
        'batch.approval-differs',
        `${pendingInWords(recorded.pending, batch.currency)}; you chose ${mine}. Agree to complete theirs (agree), ` +
          `or start a new round with your choice (newRound), after which ${peopleInWords(recorded.pending.state.approvals)} must approve again`,
      );
    }
    const replaces = recorded?.replaced.map((a) => a.actor) ?? [];
    const choiceDetail = {
      validRowsOnly: choice.validRowsOnly,
      includeHeld: choice.includeHeld,
      includeChangedAccounts: choice.includeChangedAccounts,
      payAt: choice.payAt?.toISOString() ?? null,
    };
    const policy = recorded?.state;
    const policyDetail =
      policy === undefined
        ? {}
        : {
            policyMet: policy.met,
            approvals: policy.approvals.length,
            approvalsNeeded: policy.needed.count,
            ...(replaces.length === 0 ? {} : { replaces }),
          };
    if (policy !== undefined && !policy.met) {
      await recordAudit(tx, by, {
        action: 'batch.approve',
        batchId,
        detail: { ...choiceDetail, agreed: request.agree === true, from: batch.status, ...policyDetail },
      });
      return { batch: await tx.batch.findUniqueOrThrow({ where: { id: batchId } }) };
    }
    // Exactly the rows the approvals agreed to: the held rows their fingerprint was read from.
    const selection = await selectApprovalRows(tx, batchId, choice);
    const included = await tx.batchItem.updateMany({
      where: { batchId, status: BatchItemStatus.DUPLICATE, id: { in: [...selection.heldIds] } },
      data: { status: BatchItemStatus.PENDING, errorCode: null, errorMessage: null },
    });
    const { includeHeld, includeChangedAccounts, validRowsOnly } = choice;
    const changed = await tx.batch.updateMany({
      where: { id: batchId, status: batch.status },
      data: { ...start, validRowsOnly, includeHeld, includeChangedAccounts, approvedBy: request.approver, approvedAt: now },
    });
    if (changed.count === 0) throw new BatchStateError('batch.changed', 'the batch changed meanwhile; try again');
    // From now on its rows are what later imports and approvals are checked against.
    await registerApprovedPayees(query, batchId);
    const detail = {
      ...choiceDetail,
      from: batch.status,
      heldRows: batch.heldCount,
      changedAccountRows: batch.changedAccountCount,
      heldIncluded: included.count,
      forced: batch.forced,
      balanceChecked: funds !== undefined,
      agreed: request.agree === true,
      ...(funds === undefined
        ? {}
        : { available: fromMinorUnits(funds.availableMinor), needed: fromMinorUnits(funds.amountMinor + funds.commissionMinor) }),
      ...policyDetail,
    };
    await recordAudit(tx, by, { action: 'batch.approve', batchId, detail });
    const approved = await tx.batch.findUniqueOrThrow({ where: { id: batchId } });
    // What the systems around payroll act on (outbound/), committed with the approval.
    await recordBatchEvent(query, 'batch.approved', batchId, {
      approvedBy: request.approver,
      includeHeld,
      includeChangedAccounts,
      validRowsOnly,
      approvals: policy?.approvals.length ?? 1,
    });
    await recordBatchEvent(query, approved.status === batchStates.scheduled ? 'batch.scheduled' : 'batch.started', batchId, {
      by: request.approver,
    });
    return { batch: approved };
  }, deps.transaction);
  deps.events.workArrived(batchId);
  if ('held' in outcome) {
    throw new BatchStateError(
      'batch.new-duplicates',
      `${outcome.held} ${outcome.held === 1 ? 'row repeats' : 'rows repeat'} a payment of a batch approved since this one was imported; ` +
        'they are now held back (see the batch’s problems): approve again to pay the rest, or include held rows to pay them too',
    );
  }
  return outcome.batch;
}

/** Errors of the whole file, which no approval skips: problems with no line, or line 1 (the header). */
export async function countFileErrors(prisma: PrismaClient, batchId: string): Promise<number> {
  return prisma.batchProblem.count({ where: { batchId, severity: 'error', OR: [{ line: null }, { line: 1 }] } });
}

import { sqlOf, type PrismaClient } from '../db/database.ts';
import { lenientToMinorUnits } from '../money/money.ts';
import { addBatchApproval, addPaymentApproval, batchApprovals, paymentApprovals, type StoredApproval } from './approval-store.ts';
import { evaluate, type Evaluation, type GivenApproval } from './evaluate.ts';
import type { ApprovalPolicy } from './policy.ts';
import { readRowSet, type RowSet } from './sql/read-row-set.ts';

type Tx = Parameters<typeof sqlOf>[0] & Pick<PrismaClient, 'approval'>;

export interface ApprovalSettings {
  policy: ApprovalPolicy;
  lapseDays: number;
  extraForChangedAccounts: boolean;
  /** One person may upload and approve (no keys, or GATEWAY_SINGLE_USER): the uploader or creator counts then. */
  singleUser: boolean;
}

/** A batch or payment's approvals as people read them. */
export interface ApprovalState {
  met: boolean;
  /** The approvals that count now, one per person, earliest first. */
  approvals: GivenApproval[];
  /** Approvals of these rows that no longer count because they are older than APPROVAL_LAPSE_DAYS. */
  lapsed: GivenApproval[];
  required: { count: number; roles: string[] };
  needed: { count: number; roles: string[] };
  lapseDays: number;
  /** A batch's: the rows the approvals are of, their count and total (a decimal string). */
  rows?: { count: number; total: string };
}

/** The rows a batch approval pays and the choices that made them: what an approval is of. */
export interface BatchRowChoice {
  batchId: string;
  uploadedBy: string | null;
  includeHeld: boolean;
  validRowsOnly: boolean;
  /** Rows held for an account changed since the payee's last payment are paid too (payees/). */
  includeChangedAccounts?: boolean;
  /** The statuses of the rows it would pay (from batch/rows/row-states.ts). */
  rowStatuses: readonly string[];
}

/**
 * Approval by policy (docs/guide/approval-policy.md): approvals of a batch or a single
 * payment accumulate, one per person, and the caller moves money only once `met`. The
 * evaluation itself is evaluate.ts's; this reads and writes the approvals around it.
 */
export class Approvals {
  constructor(
    private readonly settings: ApprovalSettings,
    /** Rows paid to an account changed since the payee's last payment (the payees' room provides it); none without it. */
    private readonly changedAccountRows: (tx: Tx, batchId: string, includeChangedAccounts: boolean) => Promise<number> = async () => 0,
  ) {}

  get policy(): ApprovalPolicy {
    return this.settings.policy;
  }

  private get lapseMs(): number {
    return this.settings.lapseDays * 24 * 3600_000;
  }

  /** Records one person's approval of the rows chosen (inside the caller's transaction) and says whether the policy is now met. */
  async approveBatch(tx: Tx, choice: BatchRowChoice, by: { actor: string; role: string | null }, now: Date): Promise<ApprovalState> {
    const rows = await readRowSet(sqlOf(tx), choice.batchId, choice.rowStatuses);
    await addBatchApproval(tx, {
      batchId: choice.batchId,
      actor: by.actor,
      role: by.role,
      at: now,
      rowSet: rows.fingerprint,
      includeHeld: choice.includeHeld,
      validRowsOnly: choice.validRowsOnly,
    });
    return this.evaluateBatch(tx, choice, rows, now);
  }

  /** Where a batch stands, for the rows its latest approval chose (or its own rows to pay when none yet). */
  async batchState(tx: Tx, choice: BatchRowChoice, now: Date): Promise<ApprovalState> {
    return this.evaluateBatch(tx, choice, await readRowSet(sqlOf(tx), choice.batchId, choice.rowStatuses), now);
  }

  /** The latest choice people made when approving (includeHeld, validRowsOnly): what the page and GraphQL show the state of. */
  async latestChoice(tx: Tx, batchId: string): Promise<Pick<StoredApproval, 'includeHeld' | 'validRowsOnly'> | undefined> {
    return (await batchApprovals(tx, batchId)).at(-1);
  }

  /** The approvals that started a batch: those of the rows approved last, up to when it started, one per person, never the uploader's. */
  async startedWith(db: Pick<PrismaClient, 'approval'>, batch: { batchId: string; uploadedBy: string | null; approvedAt: Date }): Promise<GivenApproval[]> {
    const all = (await batchApprovals(db, batch.batchId)).filter((a) => a.at.getTime() <= batch.approvedAt.getTime());
    const last = all.at(-1);
    const excluded = this.settings.singleUser ? null : batch.uploadedBy;
    const counted: GivenApproval[] = [];
    for (const a of all) {
      if (a.rowSet === last?.rowSet && a.actor !== excluded && !counted.some((c) => c.actor === a.actor)) counted.push(a);
    }
    return counted;
  }

  private async evaluateBatch(tx: Tx, choice: BatchRowChoice, rows: RowSet, now: Date): Promise<ApprovalState> {
    const changed = this.settings.extraForChangedAccounts ? await this.changedAccountRows(tx, choice.batchId, choice.includeChangedAccounts ?? false) : 0;
    const subject = { kind: 'batch' as const, totalMinor: lenientToMinorUnits(rows.total), largestRowMinor: lenientToMinorUnits(rows.largest), changedAccountRows: changed };
    const evaluation = evaluate(this.settings.policy, subject, await batchApprovals(tx, choice.batchId), {
      excluded: this.settings.singleUser ? null : choice.uploadedBy,
      now,
      lapseMs: this.lapseMs,
      rowSet: rows.fingerprint,
      extraForChangedAccounts: this.settings.extraForChangedAccounts,
    });
    return { ...this.state(evaluation), rows: { count: rows.rows, total: rows.total } };
  }

  /**
   * A single payment about to be executed by `by`: their execute is their approval. Below
   * every tier the creator alone suffices; above, others must execute it (each execute
   * recorded) until the policy is met. Not recorded for the creator (who never counts).
   * `changedAccount`: its payee was last paid to another account and the executor included
   * it; APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS asks one more approver then.
   */
  async approvePayment(
    db: Pick<PrismaClient, 'approval'>,
    payment: { paymentId: string; amount: string; currency: string; createdBy: string; changedAccount: boolean },
    by: { actor: string; role: string | null },
    now: Date,
  ): Promise<ApprovalState> {
    const rowSet = `${payment.amount} ${payment.currency}`;
    const excluded = this.settings.singleUser ? null : payment.createdBy;
    const subject = { kind: 'payment' as const, amountMinor: lenientToMinorUnits(payment.amount), changedAccount: payment.changedAccount };
    const context = { excluded, now, lapseMs: this.lapseMs, rowSet, extraForChangedAccounts: this.settings.extraForChangedAccounts };
    const alone = evaluate(this.settings.policy, subject, [], context);
    if (alone.met) return this.state(alone);
    if (by.actor !== excluded) await addPaymentApproval(db, { paymentId: payment.paymentId, actor: by.actor, role: by.role, at: now, rowSet });
    return this.state(evaluate(this.settings.policy, subject, await paymentApprovals(db, payment.paymentId), context));
  }

  private state(evaluation: Evaluation): ApprovalState {
    return {
      met: evaluation.met,
      approvals: evaluation.counted,
      lapsed: evaluation.lapsed,
      required: { count: evaluation.required.approvers, roles: evaluation.required.including },
      needed: { count: evaluation.needed.approvers, roles: evaluation.needed.including },
      lapseDays: this.settings.lapseDays,
    };
  }
}

/** "needs 1 more approver (admin)" / "needs 2 more approvers": the words every refusal and answer use. */
export function neededInWords(state: Pick<ApprovalState, 'needed'>): string {
  const { count, roles } = state.needed;
  const people = `${count} more ${count === 1 ? 'approver' : 'approvers'}`;
  return roles.length === 0 ? people : `${people} (${roles.length === count ? '' : 'including '}${roles.join(', ')})`;
}

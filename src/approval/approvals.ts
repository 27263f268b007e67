import { sqlOf, type PrismaClient } from '../db/database.ts';
import { lenientToMinorUnits } from '../money/money.ts';
import { addBatchApproval, addPaymentApproval, batchApprovals, paymentApprovals, type StoredApproval } from './approval-store.ts';
import { agrees, evaluate, type Evaluation, type GivenApproval } from './evaluate.ts';
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

/** Which held rows a batch approval pays (payees/held-for-changed-account.ts reads the rule). */
export interface HeldChoice {
  includeHeld: boolean;
  /** Rows held for an account changed since the payee's last payment. */
  includeChangedAccounts: boolean;
}

/** Everything a batch approval agrees to (decision 0029): the rows, and when they are paid. */
export interface BatchChoice extends HeldChoice {
  validRowsOnly: boolean;
  /** Null: as soon as the approvals are complete. */
  payAt: Date | null;
}

/** The rows a choice pays: those in `statuses` (batch/states/row-states.ts), and the held rows it releases. */
export interface RowSelection {
  statuses: readonly string[];
  heldIds: readonly bigint[];
  /** Of those, rows held for a changed account: APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS asks one more approver for them. */
  changedAccountRows: number;
}

/** Reads which rows a held-row choice pays; the batch room provides it (it owns the rule of which held rows go). */
export type SelectRows = (tx: Tx, batchId: string, held: HeldChoice) => Promise<RowSelection>;

export interface BatchRef {
  batchId: string;
  uploadedBy: string | null;
}

/** The choice the approvals given so far agree to, while it awaits more: what a later approver completes or replaces. */
export interface PendingChoice {
  choice: BatchChoice;
  /** Who chose it last (their approval is one of `state.approvals`). */
  by: StoredApproval;
  state: ApprovalState & { rows: { count: number; total: string } };
}

export type BatchApprovalOutcome =
  | { kind: 'recorded'; state: ApprovalState; choice: BatchChoice; replaced: GivenApproval[] }
  /** Another choice awaits: nothing recorded; the approver agrees to it, or starts a new round. */
  | { kind: 'differs'; pending: PendingChoice; rows: RowSet };

/**
 * Approval by policy (docs/guide/approval-policy.md): approvals of a batch or a single
 * payment accumulate, one per person, and the caller moves money only once `met`. An
 * approval counts only with those that agree to the same rows and the same time to pay
 * (decision 0029). The evaluation itself is evaluate.ts's; this reads and writes around it.
 */
export class Approvals {
  constructor(
    private readonly settings: ApprovalSettings,
    private readonly selectRows: SelectRows = async () => ({ statuses: [], heldIds: [], changedAccountRows: 0 }),
  ) {}

  get policy(): ApprovalPolicy {
    return this.settings.policy;
  }

  private get lapseMs(): number {
    return this.settings.lapseDays * 24 * 3600_000;
  }

  private excludedOf(batch: BatchRef): string | null {
    return this.settings.singleUser ? null : batch.uploadedBy;
  }

  /**
   * Records one person's approval of a batch's rows as chosen (inside the caller's
   * transaction, under its approval lock) and says whether the policy is now met for that
   * choice. When other people's approvals agree to another choice, nothing is recorded
   * unless `newRound`: the answer names that choice, for the approver to agree to or replace.
   */
  async approveBatch(
    tx: Tx,
    batch: BatchRef,
    choice: BatchChoice,
    by: { actor: string; role: string | null },
    now: Date,
    newRound = false,
  ): Promise<BatchApprovalOutcome> {
    const selection = await this.selectRows(tx, batch.batchId, choice);
    const rows = await readRowSet(sqlOf(tx), batch.batchId, selection.statuses, selection.heldIds);
    const pending = await this.pending(tx, batch, now);
    const mine = { rowSet: rows.fingerprint, payAt: choice.payAt };
    const replaced = pending === undefined || agrees(pending.by, mine) ? [] : pending.state.approvals.filter((a) => a.actor !== by.actor);
    if (replaced.length > 0 && !newRound) return { kind: 'differs', pending: pending!, rows };
    await addBatchApproval(tx, { batchId: batch.batchId, actor: by.actor, role: by.role, at: now, ...mine, ...choice });
    return { kind: 'recorded', state: await this.evaluateBatch(tx, batch, mine, rows, selection, now), choice, replaced };
  }

  /** Paying failed rows again is approving them again: their approvals count together while the rows stay as they are. */
  async approveRetry(
    tx: Tx,
    batch: BatchRef,
    statuses: readonly string[],
    by: { actor: string; role: string | null },
    now: Date,
  ): Promise<ApprovalState> {
    const selection = { statuses, heldIds: [], changedAccountRows: 0 };
    const rows = await readRowSet(sqlOf(tx), batch.batchId, statuses);
    const plain = { includeHeld: false, includeChangedAccounts: false, validRowsOnly: false, payAt: null };
    await addBatchApproval(tx, { batchId: batch.batchId, actor: by.actor, role: by.role, at: now, rowSet: rows.fingerprint, ...plain });
    return this.evaluateBatch(tx, batch, { rowSet: rows.fingerprint, payAt: null }, rows, selection, now);
  }

  /**
   * The choice approvals agree to while the batch awaits more: the latest counting approval's,
   * while its rows are still as it approved them. Undefined when nobody's approval counts.
   */
  async pending(tx: Tx, batch: BatchRef, now: Date): Promise<PendingChoice | undefined> {
    const excluded = this.excludedOf(batch);
    const live = (await batchApprovals(tx, batch.batchId)).filter(
      (a) => a.actor !== excluded && now.getTime() - a.at.getTime() < this.lapseMs,
    );
    const latest = live.at(-1);
    if (latest === undefined) return undefined;
    const selection = await this.selectRows(tx, batch.batchId, latest);
    const rows = await readRowSet(sqlOf(tx), batch.batchId, selection.statuses, selection.heldIds);
    // The rows moved since (a repeat held, a row paid): no approval of them counts any more.
    if (rows.fingerprint !== latest.rowSet) return undefined;
    const { includeHeld, includeChangedAccounts, validRowsOnly, payAt } = latest;
    const state = await this.evaluateBatch(tx, batch, latest, rows, selection, now);
    return { choice: { includeHeld, includeChangedAccounts, validRowsOnly, payAt }, by: latest, state };
  }

  /** Where a batch awaiting approval stands: the pending choice, and the state of it, or of its waiting rows paid at once when none. */
  async batchView(tx: Tx, batch: BatchRef, now: Date): Promise<{ pending: PendingChoice | undefined; state: ApprovalState }> {
    const pending = await this.pending(tx, batch, now);
    if (pending !== undefined) return { pending, state: pending.state };
    const selection = await this.selectRows(tx, batch.batchId, { includeHeld: false, includeChangedAccounts: false });
    const rows = await readRowSet(sqlOf(tx), batch.batchId, selection.statuses, selection.heldIds);
    return { pending, state: await this.evaluateBatch(tx, batch, { rowSet: rows.fingerprint, payAt: null }, rows, selection, now) };
  }

  /** The approvals that started a batch: those agreeing with the last one before it started, one per person, never the uploader's. */
  async startedWith(db: Pick<PrismaClient, 'approval'>, batch: BatchRef & { approvedAt: Date }): Promise<StoredApproval[]> {
    const all = (await batchApprovals(db, batch.batchId)).filter((a) => a.at.getTime() <= batch.approvedAt.getTime());
    const last = all.at(-1);
    const excluded = this.excludedOf(batch);
    const counted: StoredApproval[] = [];
    for (const a of all) {
      if (last !== undefined && agrees(a, last) && a.actor !== excluded && !counted.some((c) => c.actor === a.actor)) counted.push(a);
    }
    return counted;
  }

  private async evaluateBatch(
    tx: Tx,
    batch: BatchRef,
    choice: { rowSet: string; payAt: Date | null },
    rows: RowSet,
    selection: RowSelection,
    now: Date,
  ): Promise<ApprovalState & { rows: { count: number; total: string } }> {
    const changed = this.settings.extraForChangedAccounts ? selection.changedAccountRows : 0;
    const subject = {
      kind: 'batch' as const,
      totalMinor: lenientToMinorUnits(rows.total),
      largestRowMinor: lenientToMinorUnits(rows.largest),
      changedAccountRows: changed,
    };
    const evaluation = evaluate(this.settings.policy, subject, await batchApprovals(tx, batch.batchId), {
      excluded: this.excludedOf(batch),
      now,
      lapseMs: this.lapseMs,
      choice: { rowSet: choice.rowSet, payAt: choice.payAt },
      extraForChangedAccounts: this.settings.extraForChangedAccounts,
    });
    return { ...this.state(evaluation), rows: { count: rows.rows, total: rows.total } };
  }

  /**
   * A single payment about to be executed by `by`: their execute is their approval. Below
   * every tier the creator alone suffices; above, others must execute it (each execute
   * recorded) until the policy is met. Not recorded for the creator (who never counts).
   * `changedAccount`: its payee was last paid to another account and the executor included
   * it; APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS asks one more approver then. A payment has one
   * choice (its amount, now): every execute agrees to it.
   */
  async approvePayment(
    db: Pick<PrismaClient, 'approval'>,
    payment: { paymentId: string; amount: string; currency: string; createdBy: string; changedAccount: boolean },
    by: { actor: string; role: string | null },
    now: Date,
  ): Promise<ApprovalState> {
    const choice = { rowSet: `${payment.amount} ${payment.currency}`, payAt: null };
    const excluded = this.settings.singleUser ? null : payment.createdBy;
    const subject = { kind: 'payment' as const, amountMinor: lenientToMinorUnits(payment.amount), changedAccount: payment.changedAccount };
    const context = { excluded, now, lapseMs: this.lapseMs, choice, extraForChangedAccounts: this.settings.extraForChangedAccounts };
    const alone = evaluate(this.settings.policy, subject, [], context);
    if (alone.met) return this.state(alone);
    if (by.actor !== excluded)
      await addPaymentApproval(db, { paymentId: payment.paymentId, actor: by.actor, role: by.role, at: now, ...choice });
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

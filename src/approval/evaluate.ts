import type { Role } from '../config/api-key-entries.ts';
import type { ApprovalPolicy, Requirement, Tier } from './policy.ts';

/** What is being approved, by the amounts the tiers read. */
export type Subject =
  | { kind: 'batch'; totalMinor: bigint; largestRowMinor: bigint; changedAccountRows: number }
  | { kind: 'payment'; amountMinor: bigint; changedAccount: boolean };

export interface GivenApproval {
  actor: string;
  role: string | null;
  at: Date;
  /** What was approved (sql/read-row-set.ts): an approval of another row set does not count. */
  rowSet: string;
  /** When the approver agreed the money leaves (null: once approved): an approval of another time does not count. */
  payAt: Date | null;
}

/** What approvals must agree on to count together: exactly the rows, and when they are paid (decision 0029). */
export interface Choice {
  rowSet: string;
  payAt: Date | null;
}

export function agrees(approval: Choice, choice: Choice): boolean {
  return approval.rowSet === choice.rowSet && (approval.payAt?.getTime() ?? null) === (choice.payAt?.getTime() ?? null);
}

export interface EvaluationContext {
  /** The uploader or creator: never counts (null in single-user mode, where one person may do both). */
  excluded: string | null;
  now: Date;
  /** An approval older than this no longer counts. */
  lapseMs: number;
  /** The rows being paid and when; approvals of another choice do not count. */
  choice: Choice;
  /** APPROVAL_EXTRA_FOR_CHANGED_ACCOUNTS: one more approver when a batch pays rows, or a payment pays an account, that changed since the payee's last payment. */
  extraForChangedAccounts: boolean;
}

export interface Evaluation {
  required: Requirement;
  /** The approvals that count, one per person (their earliest valid one). */
  counted: GivenApproval[];
  /** Approvals of this choice that have lapsed, newest first, one per person not counted. */
  lapsed: GivenApproval[];
  met: boolean;
  /** Still needed: how many more people, and which roles must be among them. */
  needed: Requirement;
}

/** The largest requirement of the tiers an amount is above: most approvers, and each role as often as any one tier names it. */
function applicable(tiers: Tier[], amountMinor: bigint): Tier[] {
  return tiers.filter((tier) => amountMinor > tier.aboveMinor);
}

export function requirementFor(policy: ApprovalPolicy, subject: Subject, extraForChangedAccounts: boolean): Requirement {
  const tiers =
    subject.kind === 'batch'
      ? [...applicable(policy.batch.byTotal, subject.totalMinor), ...applicable(policy.batch.byLargestRow, subject.largestRowMinor)]
      : applicable(policy.payment.byAmount, subject.amountMinor);
  let approvers = subject.kind === 'batch' ? policy.batch.approvers : policy.payment.approvers;
  const roleCounts = new Map<Role, number>();
  for (const tier of tiers) {
    approvers = Math.max(approvers, tier.approvers);
    const here = new Map<Role, number>();
    for (const role of tier.including) here.set(role, (here.get(role) ?? 0) + 1);
    for (const [role, count] of here) roleCounts.set(role, Math.max(roleCounts.get(role) ?? 0, count));
  }
  const changed = subject.kind === 'batch' ? subject.changedAccountRows > 0 : subject.changedAccount;
  if (extraForChangedAccounts && changed) approvers += 1;
  const including = [...roleCounts].flatMap(([role, count]) => Array<Role>(count).fill(role));
  return { approvers: Math.max(approvers, including.length), including };
}

/**
 * Whether the approvals given meet the policy for this subject. Pure: the callers read the
 * approvals (approval-store.ts) and act on the answer.
 */
export function evaluate(policy: ApprovalPolicy, subject: Subject, approvals: GivenApproval[], context: EvaluationContext): Evaluation {
  const required = requirementFor(policy, subject, context.extraForChangedAccounts);
  const byTime = [...approvals].sort((a, b) => a.at.getTime() - b.at.getTime());
  const counted: GivenApproval[] = [];
  const lapsedByActor = new Map<string, GivenApproval>();
  for (const approval of byTime) {
    if (approval.actor === context.excluded || !agrees(approval, context.choice)) continue;
    if (context.now.getTime() - approval.at.getTime() >= context.lapseMs) {
      lapsedByActor.set(approval.actor, approval);
      continue;
    }
    if (!counted.some((c) => c.actor === approval.actor)) counted.push(approval);
  }
  const lapsed = [...lapsedByActor.values()]
    .filter((a) => !counted.some((c) => c.actor === a.actor))
    .sort((a, b) => b.at.getTime() - a.at.getTime());
  const missingRoles: Role[] = [];
  const wanted = new Map<Role, number>();
  for (const role of required.including) wanted.set(role, (wanted.get(role) ?? 0) + 1);
  for (const [role, count] of wanted) {
    const have = counted.filter((c) => c.role === role).length;
    for (let i = have; i < count; i++) missingRoles.push(role);
  }
  const count = Math.max(required.approvers - counted.length, missingRoles.length, 0);
  return { required, counted, lapsed, met: count === 0, needed: { approvers: count, including: missingRoles } };
}

import type { Role } from '../config/api-key-entries.ts';

/**
 * An approval policy: how many distinct people, and of which roles, a batch or a single
 * payment needs before money moves, by amount. Amounts are minor units (bigint); the file
 * (policy-file.ts) writes them as decimal strings.
 */
export interface Tier {
  /** The tier applies when the amount is strictly above this. */
  aboveMinor: bigint;
  approvers: number;
  /** Roles that must be among the approvers, one approver each (["admin"]: at least one admin). */
  including: Role[];
}

export interface Requirement {
  approvers: number;
  including: Role[];
}

export interface ApprovalPolicy {
  batch: {
    /** What every batch needs, whatever its amount. */
    approvers: number;
    byTotal: Tier[];
    byLargestRow: Tier[];
  };
  payment: {
    /** 0: the key that created a payment may execute it alone (below every tier). */
    approvers: number;
    byAmount: Tier[];
  };
  /** Where it came from, for the start-up log and the docs: a file, or today's rule. */
  source: string;
}

/**
 * Today's rule as a policy: one approver other than the uploader for any batch; a single
 * payment above PAYMENT_SECOND_PERSON_ABOVE needs one key other than its creator's.
 */
export function defaultPolicy(secondPersonAboveMinor: bigint): ApprovalPolicy {
  return {
    batch: { approvers: 1, byTotal: [], byLargestRow: [] },
    payment: { approvers: 0, byAmount: [{ aboveMinor: secondPersonAboveMinor, approvers: 1, including: [] }] },
    source: 'default (PAYMENT_SECOND_PERSON_ABOVE)',
  };
}

/** The roles whose approval counts: a batch is approved by approvers and admins, a payment executed by operators and admins. */
export const countingRoles = {
  batch: ['approver', 'admin'],
  payment: ['operator', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

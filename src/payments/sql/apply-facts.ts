import { sqlList } from '../../db/sql-list.ts';
import type { BillingDetails } from '../../payout/models.ts';
import { allowedMoves, needsReadBack } from '../status.ts';

/** A payment status learned from the upstream (or a local one: UNKNOWN, REJECTED). */
export interface PaymentFact {
  paymentId: string;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
  changedAt: string | null;
  commission: string | null;
  upstreamCreatedAt: string | null;
  expiresAt: string | null;
  billingDetails: BillingDetails | null;
  source: string;
  /** When the read-back should first read an IN_PROGRESS or UNKNOWN payment back. */
  checkInMs: number;
}

const allowedPairs = allowedMoves.map(([from, to]) => `('${from}', '${to}')`).join(', ');

/**
 * CTEs that apply payment facts by the table of payments/status.ts, for a statement that
 * writes more (the batch worker's row moves, so that a row and what it taught about its
 * payment commit together). `facts` names a relation with the columns "paymentId",
 * "payStatus" (null: no fact), "payErrorCode", "payErrorMessage", "changedAt", commission,
 * "upstreamCreatedAt", "expiresAt", "payBilling", source, "checkInMs". A fact is applied
 * only where the table allows the move from the recorded status, with a history entry;
 * details it lacks keep their recorded values. Defines `applied_facts("paymentId", status)`.
 */
export function applyFactsCte(facts: string): string {
  return `applied_facts AS (
  UPDATE "Payment" AS p SET
    status = t."payStatus"::"TrackedStatus",
    "errorCode" = t."payErrorCode",
    "errorMessage" = t."payErrorMessage",
    "statusChangedAt" = COALESCE(t."changedAt", p."statusChangedAt"),
    commission = COALESCE(t.commission, p.commission),
    "upstreamCreatedAt" = COALESCE(t."upstreamCreatedAt", p."upstreamCreatedAt"),
    "expiresAt" = COALESCE(t."expiresAt", p."expiresAt"),
    "billingDetails" = COALESCE(t."payBilling", p."billingDetails"),
    "nextCheckAt" = CASE WHEN t."payStatus" IN (${sqlList([...needsReadBack])}) THEN now() + t."checkInMs" * interval '1 millisecond' ELSE NULL END,
    "checkAttempts" = 0,
    "updatedAt" = now()
  FROM ${facts} AS t
  WHERE p."paymentId" = t."paymentId" AND t."payStatus" IS NOT NULL
    AND (p.status::text, t."payStatus") IN (${allowedPairs})
  RETURNING p."paymentId", p.status::text AS status
), applied_fact_history AS (
  INSERT INTO "PaymentStatusEvent" ("paymentId", status, "errorCode", "errorMessage", source, "changedAt")
  SELECT t."paymentId", t."payStatus"::"TrackedStatus", t."payErrorCode", t."payErrorMessage", t.source, t."changedAt"
  FROM ${facts} AS t JOIN applied_facts ON applied_facts."paymentId" = t."paymentId"
)`;
}

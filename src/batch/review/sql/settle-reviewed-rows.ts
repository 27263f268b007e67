import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import type { BillingDetails } from '../../../payout/models.ts';
import { rowStates, unpayableItemStatuses } from '../../states/row-states.ts';
import { heldBackSql } from '../../rows/sql/row-events.ts';
import { reviewStatus } from '../../states/review-states.ts';
import { outboxCte, sqlEventType } from '../../../outbound/index.ts';

/** What a settlement ends a row in: its outcome. A row read IN_PROGRESS is not settled yet, whatever the review says. */
const settledStates = [rowStates.completed, rowStates.failed, rowStates.expired, rowStates.cancelled] as const;

/** One NEEDS_REVIEW row's settlement (review-states.ts), fenced by the paymentId it had when it was read. */
export interface ReviewedRowChange {
  id: string;
  /** The row's paymentId when the review read it: the write applies only if it is unchanged. */
  fromPaymentId: string;
  to: string;
  errorCode: string | null;
  errorMessage: string | null;
  billingDetails: BillingDetails | null;
  /** The payment the row now stands for (an earlier attempt's, for a previous-attempt row), and its attempt. */
  paymentId: string;
  attempt: number;
  finished: boolean;
}

/**
 * Settles rows still NEEDS_REVIEW, in one statement; a row settled meanwhile by someone
 * else is left as it is (and not returned). A row that can never be paid again keeps only
 * its masked recipient (card-data.ts); one that may (FAILED, EXPIRED, IN_PROGRESS) keeps
 * its sealed fields. The row's step starts afresh: no retries spent, no lease, due now.
 */
const sql = `
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::text[], $8::int[], $9::bool[])
  AS t(id, "fromPaymentId", "to", "errorCode", "errorMessage", "billingDetails", "paymentId", attempt, finished)
), settled AS (
UPDATE "BatchItem" AS i SET
  status = t."to"::"BatchItemStatus",
  "errorCode" = t."errorCode",
  "errorMessage" = t."errorMessage",
  "billingDetails" = t."billingDetails",
  "paymentId" = t."paymentId",
  attempt = t.attempt,
  fields = CASE WHEN t."to" IN (${sqlList(unpayableItemStatuses)}) THEN i.fields - '$sealed'::text ELSE i.fields END,
  retries = 0,
  "notBefore" = NULL,
  "finishedAt" = CASE WHEN t.finished THEN now() ELSE NULL END,
  "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL,
  "updatedAt" = now()
FROM input AS t
WHERE i.id = t.id AND i.status = ${sqlName(reviewStatus)} AND i."paymentId" = t."fromPaymentId"
RETURNING i.id, i."batchId", i.line, i."paymentId", i.status::text AS status, i.amount, i.currency, i."errorCode", i."errorMessage", i.fields
), ${outboxCte(
  'review_events',
  `SELECT ${sqlEventType('batch_row.settled_by_review')} AS type, r."paymentId" AS "subjectId",
     jsonb_build_object('batchId', r."batchId", 'line', r.line, 'paymentId', r."paymentId", 'status', r.status,
       'amount', r.amount::text, 'currency', r.currency, 'code', r."errorCode", 'message', r."errorMessage", 'by', $10::text) AS data
   FROM settled AS r
   -- An outcome only (docs/decisions/0026-final-outcome-events.md): a row read still in progress
   -- is the worker's to tell when it ends; one failed for funds, its batch's to pay again or tell.
   WHERE r.status IN (${sqlList(settledStates)}) AND NOT ${heldBackSql('r')}
   ORDER BY r."batchId", r.line`,
)}
SELECT id::text AS id FROM settled`;

/** Returns the ids of the rows it settled; each is an outbound event naming `by` (outbound/), committed with it. */
export async function settleReviewedRows(query: SqlQuery, changes: ReviewedRowChange[], by: string): Promise<Set<string>> {
  if (changes.length === 0) return new Set();
  const column = <T>(pick: (change: ReviewedRowChange) => T) => changes.map(pick);
  const rows = await query<{ id: string }>(sql, [
    column((c) => c.id),
    column((c) => c.fromPaymentId),
    column((c) => c.to),
    column((c) => c.errorCode),
    column((c) => c.errorMessage),
    column((c) => (c.billingDetails === null ? null : JSON.stringify(c.billingDetails))),
    column((c) => c.paymentId),
    column((c) => c.attempt),
    column((c) => c.finished),
    by,
  ]);
  return new Set(rows.map((row) => row.id));
}

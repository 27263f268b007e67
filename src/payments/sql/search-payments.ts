import type { SqlQuery } from '../../db/database.ts';
import type { SearchPosition } from '../payment-search.ts';

export interface PaymentSearch {
  /** The payer's own reference: the `reference` cell of the batch row the payment pays. */
  reference?: string;
  batchId?: string;
  status?: string;
  /** Recorded at or after this instant. */
  from?: Date;
  /** Recorded before this instant. */
  before?: Date;
  /** Continue after this position of the order (newest first): older payments. */
  after?: SearchPosition;
  /** Stop before this position of the order: newer payments. */
  until?: SearchPosition;
  /** Read from the oldest end (a page backwards); the caller puts the page back in order. */
  oldestFirst?: boolean;
  limit: number;
}

/**
 * The gateway's own records of payments, newest first, over any date range (the
 * upstream's list only reaches back 50 days). Only the filters given become conditions,
 * so each search is planned on the indexes it can use: reference through
 * BatchItem(reference) then Payment(batchId, batchRow); a batch on Payment(batchId,
 * createdAt); dates and the plain newest-first order on Payment(createdAt).
 * Paged by position, not offset, so a page stays right while new payments arrive.
 */
export async function searchPayments(query: SqlQuery, search: PaymentSearch): Promise<SearchPosition[]> {
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions: string[] = [];
  // A join rather than EXISTS: the planner then starts from the few rows with the reference;
  // with EXISTS it walked every payment newest first, probing each one's row.
  const join = search.reference === undefined ? '' : 'JOIN "BatchItem" AS i ON i."batchId" = p."batchId" AND i.line = p."batchRow"';
  if (search.reference !== undefined) conditions.push(`i.reference = ${param(search.reference)}`);
  if (search.batchId !== undefined) conditions.push(`p."batchId" = ${param(search.batchId)}`);
  if (search.status !== undefined) conditions.push(`p.status = ${param(search.status)}::"TrackedStatus"`);
  if (search.from !== undefined) conditions.push(`p."createdAt" >= ${param(search.from.toISOString())}::timestamptz`);
  if (search.before !== undefined) conditions.push(`p."createdAt" < ${param(search.before.toISOString())}::timestamptz`);
  if (search.after !== undefined) {
    conditions.push(
      `(p."createdAt", p."paymentId") < (${param(search.after.createdAt.toISOString())}::timestamptz, ${param(search.after.paymentId)})`,
    );
  }
  if (search.until !== undefined) {
    conditions.push(
      `(p."createdAt", p."paymentId") > (${param(search.until.createdAt.toISOString())}::timestamptz, ${param(search.until.paymentId)})`,
    );
  }
  // The same index read the other way: a page backwards costs what a page forwards does.
  const direction = search.oldestFirst === true ? 'ASC' : 'DESC';
  const sql = `SELECT p."paymentId", p."createdAt" FROM "Payment" AS p ${join}
${conditions.length === 0 ? '' : `WHERE ${conditions.join('\n  AND ')}`}
ORDER BY p."createdAt" ${direction}, p."paymentId" ${direction}
LIMIT ${param(search.limit)}`;
  const rows = await query<{ paymentId: string; createdAt: Date | string }>(sql, params);
  return rows.map((row) => ({ paymentId: row.paymentId, createdAt: new Date(row.createdAt) }));
}

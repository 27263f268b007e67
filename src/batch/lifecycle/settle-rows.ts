import type { SqlQuery } from '../../db/database.ts';
import { finishBatches } from './sql/finish-batches.ts';
import { settleFromPayments } from '../rows/sql/settle-from-payments.ts';

/**
 * Rows no worker holds whose payments were settled outside the worker (a reconciliation's
 * repair, a webhook) take that outcome, and the batches that came to rest end. With
 * paymentIds, only those payments' rows. Returns the batches touched.
 */
export async function settleRowsFromPayments(query: SqlQuery, paymentIds: readonly string[] | null = null): Promise<string[]> {
  const batches = await settleFromPayments(query, paymentIds);
  if (batches.length > 0) await finishBatches(query, batches);
  return batches;
}

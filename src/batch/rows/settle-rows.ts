import type { SqlQuery } from '../../db/database.ts';
import { finishBatches } from '../lifecycle/sql/finish-batches.ts';
import { settleFromPayments } from './sql/settle-from-payments.ts';

/**
 * Rows in progress whose payments were settled outside the worker (a reconciliation's
 * repair) take that outcome, and the batches that came to rest end. Returns the batches touched.
 */
export async function settleRowsFromPayments(query: SqlQuery): Promise<string[]> {
  const batches = await settleFromPayments(query);
  if (batches.length > 0) await finishBatches(query, batches);
  return batches;
}

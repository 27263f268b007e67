import type { SqlQuery } from '../../../db/database.ts';

/**
 * One approval at a time across every process, until the caller's transaction ends: of two
 * batches that repeat each other approved at once, the second must see the first approved
 * (hold-approved-repeats.ts). Only inside a transaction (an xact lock ends with it).
 */
const sql = `SELECT pg_advisory_xact_lock(hashtext('payout-gateway:batch-approve'))::text`;

export async function lockApprovals(query: SqlQuery): Promise<void> {
  await query(sql, []);
}

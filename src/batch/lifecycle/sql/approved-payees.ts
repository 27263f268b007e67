import type { SqlQuery } from '../../../db/database.ts';

/**
 * Writes "ApprovedPayee" (its one owner): at approval, every keyed row of the batch, in one
 * statement, inside the approval's transaction. Held rows (DUPLICATE) are written too:
 * whether a row counts as paying is its status, read at each look-up, and a held row may
 * be included later. The look-ups that hold rows (find-paying-rows.ts,
 * hold-approved-repeats.ts) start from this table's key.
 */
export async function registerApprovedPayees(query: SqlQuery, batchId: string): Promise<void> {
  await query(
    `INSERT INTO "ApprovedPayee" ("payeeKey", "itemId")
     SELECT "payeeKey", id FROM "BatchItem" WHERE "batchId" = $1 AND "payeeKey" IS NOT NULL
     ON CONFLICT DO NOTHING`,
    [batchId],
  );
}

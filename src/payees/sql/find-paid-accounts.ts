import type { SqlQuery } from '../../db/database.ts';
import type { PaidAccount } from '../payee-marks.ts';

/** The account each of these payees was last paid to, in one indexed look-up (the primary key). */
const sql = `
SELECT "payeeId", "accountKey", "lastPaidAt" FROM "PayeeAccount"
WHERE "payeeId" = ANY($1::text[])`;

export async function findPaidAccounts(query: SqlQuery, payeeIds: readonly string[]): Promise<Map<string, PaidAccount>> {
  if (payeeIds.length === 0) return new Map();
  const rows = await query<PaidAccount>(sql, [[...payeeIds]]);
  return new Map(rows.map((row) => [row.payeeId, { ...row, lastPaidAt: new Date(row.lastPaidAt) }]));
}

import type { SqlQuery } from '../../../db/database.ts';
import { BatchItemStatus } from '../../../db/generated/enums.ts';
import { activeItemStatuses, retryableItemStatuses, underReviewItemStatuses } from '../../states/row-states.ts';
import { maskRecipientFields } from '../../../log/mask.ts';
import { isPlainRecipient, type CardDataVault } from '../../card-data.ts';

/**
 * Rows written before card data was sealed hold full card numbers and accounts in clear.
 * A masked value always has a `*`, a full card number or account never does: rows with a
 * `pan` or `account` without one are such rows.
 */
const pick = `
SELECT id::text AS id, "batchId", line, status::text AS status, fields FROM "BatchItem"
WHERE (fields -> '$sealed') IS NULL
  AND ((fields ->> 'pan' <> '' AND strpos(fields ->> 'pan', '*') = 0) OR (fields ->> 'account' <> '' AND strpos(fields ->> 'account', '*') = 0))
LIMIT $1`;

const write = `
UPDATE "BatchItem" AS i SET fields = t.fields, "updatedAt" = now()
FROM unnest($1::bigint[], $2::jsonb[]) AS t(id, fields)
WHERE i.id = t.id AND (i.fields -> '$sealed') IS NULL`;

/**
 * Rows that may still be paid keep their fields, sealed: retried FAILED and EXPIRED ones,
 * NEEDS_REVIEW ones (a review may prove them unpaid), and DUPLICATE ones, which the
 * approver may include.
 */
const payable: ReadonlySet<string> = new Set<BatchItemStatus>([
  ...activeItemStatuses,
  ...retryableItemStatuses,
  ...underReviewItemStatuses,
  BatchItemStatus.DUPLICATE,
]);

/**
 * Seals (rows that may still be paid) or masks (the rest) up to `limit` rows written in
 * clear by an earlier version; run by the worker's idle sweep until none is left. Returns
 * how many rows it changed. A worker paying such a row meanwhile reads it either way.
 */
export async function protectLegacyRows(query: SqlQuery, vault: CardDataVault, limit = 500): Promise<number> {
  const rows = await query<{ id: string; batchId: string; line: number; status: string; fields: Record<string, unknown> }>(pick, [limit]);
  const legacy = rows.filter((row) => isPlainRecipient(row.fields));
  if (legacy.length === 0) return 0;
  const fields = legacy.map((row) => {
    const plain = row.fields as Record<string, string>;
    return JSON.stringify(payable.has(row.status) ? vault.seal(plain, row) : maskRecipientFields(plain));
  });
  await query(write, [legacy.map((row) => row.id), fields]);
  return legacy.length;
}

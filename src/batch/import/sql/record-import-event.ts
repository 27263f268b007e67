import type { SqlQuery } from '../../../db/database.ts';
import { outboxCte, sqlEventType } from '../../../outbound/index.ts';

/**
 * batch.imported (outbound/event-types.ts), in the transaction that ends the import: the
 * file's name and status, its counts and amounts, and its problems counted by code (the
 * lines are for the page: a receiver acts on how many and of what kind; {} when none). Every
 * field is in every event, null when it has no value (docs/api/events.md).
 */
const sql = `
WITH ${outboxCte(
  'imported_event',
  `SELECT ${sqlEventType('batch.imported')} AS type, b.id AS "subjectId",
     jsonb_build_object('batchId', b.id, 'name', b.name, 'fileName', b."fileName", 'status', b.status,
       'rows', b."rowCount", 'validRows', b."validCount", 'invalidRows', b."invalidCount", 'heldRows', b."flaggedCount",
       'heldAmount', b."flaggedAmount"::text, 'changedAccountRows', b."changedAccountCount", 'totalAmount', b."totalAmount"::text,
       'currency', b.currency, 'errors', $2::int, 'warnings', $3::int, 'uploadedBy', b."uploadedBy",
       'problems', COALESCE((SELECT jsonb_object_agg(p.code, p.n) FROM (SELECT code, count(*) AS n FROM "BatchProblem" WHERE "batchId" = b.id GROUP BY code) AS p), '{}'::jsonb)) AS data
   FROM "Batch" AS b WHERE b.id = $1`,
)}
SELECT 1`;

export async function recordImportEvent(query: SqlQuery, batchId: string, errors: number, warnings: number): Promise<void> {
  await query(sql, [batchId, errors, warnings]);
}

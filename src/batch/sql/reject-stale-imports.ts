import type { SqlQuery } from '../../db/database.ts';

/**
 * An import whose process died (killed, out of memory, the machine restarted) leaves its
 * batch VALIDATING, holding its file key, with no one left to finish it. An import takes
 * seconds to a few minutes (BATCH_MAX_ROWS at thousands of rows a second), so one still
 * VALIDATING after `staleMs` is taken as dead: REJECTED, with a problem saying so, and its
 * file key given up so the same file can be uploaded again.
 */
const sql = `
WITH stale AS (
  UPDATE "Batch" SET status = 'REJECTED', "fileKey" = NULL, "validatedAt" = now()
  WHERE status = 'VALIDATING' AND "createdAt" < now() - $1 * interval '1 millisecond'
  RETURNING id
), problems AS (
  INSERT INTO "BatchProblem" ("batchId", line, "column", code, severity, message)
  SELECT id, NULL, NULL, 'import.interrupted', 'error',
    'the import stopped before it finished (its process ended); upload the file again'
  FROM stale
)
SELECT id FROM stale`;

export async function rejectStaleImports(query: SqlQuery, staleMs: number): Promise<string[]> {
  const rows = await query<{ id: string }>(sql, [staleMs]);
  return rows.map((row) => row.id);
}

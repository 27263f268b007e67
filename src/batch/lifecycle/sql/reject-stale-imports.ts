import type { SqlQuery } from '../../../db/database.ts';
import { batchStates, statesFrom } from '../../states/batch-states.ts';

/**
 * An import whose process died (killed, out of memory, the machine restarted) leaves its
 * batch VALIDATING, holding its file key, with no one left to finish it. The importer
 * pushes the batch's heartbeat forward on the database clock several times per `staleMs`
 * (batch-importer.ts), so one whose heartbeat (or, before its first, its creation) is
 * older than that is dead: REJECTED, with a problem saying so, and its file key given up
 * so the same file can be uploaded again. Its rows are never paid: a REJECTED batch is
 * only approved with validRowsOnly, and the approval refuses a file-level error.
 */
/** How long a VALIDATING batch may go without its importer's heartbeat (IMPORT_STALE_MS). */
export const DEFAULT_IMPORT_STALE_MS = 90_000;

const sql = `
WITH stale AS (
  UPDATE "Batch" SET status = $2::"BatchStatus", "fileKey" = NULL, "validatedAt" = now()
  WHERE status = ANY($3::text[]::"BatchStatus"[]) AND COALESCE("importHeartbeatAt", "createdAt") < now() - $1 * interval '1 millisecond'
  RETURNING id
), problems AS (
  INSERT INTO "BatchProblem" ("batchId", line, "column", code, severity, message)
  SELECT id, NULL, NULL, 'import.interrupted', 'error',
    'the import stopped before it finished (its process ended); upload the file again'
  FROM stale
)
SELECT id FROM stale`;

export async function rejectStaleImports(query: SqlQuery, staleMs: number): Promise<string[]> {
  const rows = await query<{ id: string }>(sql, [staleMs, batchStates.rejected, statesFrom('stale-import', batchStates.rejected)]);
  return rows.map((row) => row.id);
}

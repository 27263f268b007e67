import type { SqlQuery } from '../../db/database.ts';
import type { Logger } from '../../log/logger.ts';
import { DEFAULT_IMPORT_STALE_MS } from '../lifecycle/sql/reject-stale-imports.ts';
import type { ImportState } from './import-state.ts';
import { beatImport } from './sql/beat-import.ts';

/**
 * Pushes the batch's heartbeat forward on the database clock while its file is read, so
 * the sweep (lifecycle/sql/reject-stale-imports.ts) can tell a dead import from a long one within
 * a minute or two. A beat that finds the batch no longer VALIDATING (cancelled, or given
 * up after a stall) stops the import at its next row. Each beat also says whether another
 * batch was approved (the first one before any row is read): only then are chunks looked
 * up against approved rows. One approved after the last beat is caught at this batch's
 * approval (hold-approved-repeats.ts), as one approved after the import is.
 */
export function importHeartbeat(id: string, state: ImportState, deps: { query: SqlQuery; logger: Logger; staleMs?: number }) {
  const staleMs = deps.staleMs ?? DEFAULT_IMPORT_STALE_MS;
  let abandoned = false;
  const beat = async () => {
    const beaten = await beatImport(deps.query, id);
    if (beaten === undefined) {
      abandoned = true;
      state.abandon();
    } else if (beaten.othersApproved) {
      state.othersApproved = true;
    }
  };
  const timer = setInterval(
    () => {
      beat().catch((error: unknown) => deps.logger.warn({ err: error, batchId: id }, 'import heartbeat not written; trying again'));
    },
    Math.max(50, Math.floor(staleMs / 6)),
  );
  timer.unref();
  return {
    beat,
    stop: () => clearInterval(timer),
    get abandoned() {
      return abandoned;
    },
  };
}

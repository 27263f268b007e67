import { sqlName } from '../../db/sql-list.ts';
import { runStates } from '../run-states.ts';

/**
 * A CTE named `held`: the run's row, locked FOR SHARE, while the execution holding
 * `token` still holds the run. A statement that writes only `WHERE EXISTS (SELECT 1 FROM
 * held)` writes nothing once another execution took the run over, and a takeover (an
 * UPDATE of that row) waits until such a statement has committed, so it never lands
 * between the check and the write.
 */
export const heldRun = (runParam: string, tokenParam: string) => `
held AS MATERIALIZED (
  SELECT 1 FROM "ReconciliationRun"
  WHERE id = ${runParam} AND "leaseOwner" = ${tokenParam} AND status = ${sqlName(runStates.running)}
  FOR SHARE)`;

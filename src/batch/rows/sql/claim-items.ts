import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { breakerStates } from '../../../partner/breaker-states.ts';
import { readOnlyStates, workedStates } from '../../states/batch-states.ts';
import type { BatchStatus } from '../../../db/generated/enums.ts';
import {
  activeItemStatuses,
  readWhilePausedStatuses,
  unsentItemStatuses,
  waitingStatus,
  type ActiveItemStatus,
} from '../../states/row-states.ts';
import type { StoredRecipient } from '../../card-data.ts';

/** A row as a worker holds it: what paying it needs, and the token that fences its writes. */
export interface ClaimedItem {
  /** The row's bigint id as text. */
  id: string;
  batchId: string;
  line: number;
  paymentId: string;
  attempt: number;
  providerCode: string;
  /** Decimal string, never a float. */
  amount: string;
  currency: string;
  /** As stored: masked fields plus the sealed full ones (card-data.ts), opened only to send the create. */
  fields: StoredRecipient;
  customFields: Record<string, string> | null;
  status: ActiveItemStatus;
  retries: number;
  leaseToken: string;
  /** Milliseconds since the row became claimable (approval, its retry time, its last write or its lease's end), database clock. */
  waitedMs: number;
  /**
   * The batch's state when the row was claimed: a row of a batch that no longer pays (one
   * cancelled while the row was being created or executed) is only read back (decision 0027).
   */
  batchStatus: BatchStatus;
}

/**
 * One statement: pick due rows no one holds (SKIP LOCKED, so workers never wait on each
 * other), lease them on the database's clock, and return what paying them needs. A new
 * token with every claim fences out whoever held a row before. Rows this worker still has
 * in flight are never returned to it again. Nothing is claimed while the partner breaker
 * is open (partner/breaker-states.ts), whatever this process last read of it, but the probe:
 * `probe` claims (with limit 1) a row that sends, of a running batch, due or resting, while
 * the breaker is open. The caller holds the breaker's probe turn (PartnerBreaker.takeRowProbe,
 * one process at a time), which fences two workers from probing at once.
 */
const sql = `
UPDATE "BatchItem" AS i
SET "leaseOwner" = $1, "leaseToken" = $2::uuid, "leaseExpiresAt" = now() + $3 * interval '1 millisecond', "updatedAt" = now()
FROM (
  SELECT c.id, b.status AS "batchStatus", GREATEST(b."startedAt", c."updatedAt", c."notBefore", c."leaseExpiresAt") AS since
  FROM "BatchItem" AS c JOIN "Batch" AS b ON b.id = c."batchId"
  WHERE ((b.status IN (${sqlList(workedStates)}) AND c.status IN (${sqlList(activeItemStatuses)}))
      -- A paused batch's payments in progress are still read back: that sends nothing.
      OR (b.status IN (${sqlList(readOnlyStates)}) AND c.status IN (${sqlList(readWhilePausedStatuses)})))
    AND (c."leaseExpiresAt" IS NULL OR c."leaseExpiresAt" < now())
    AND ($7::boolean OR c."notBefore" IS NULL OR c."notBefore" <= now())
    AND c.id <> ALL($4::bigint[])
    AND ($5::text IS NULL OR c."batchId" = $5::text)
    AND ($7::boolean OR NOT EXISTS (SELECT 1 FROM "PartnerBreaker" AS pb WHERE pb.state = ${sqlName(breakerStates.open)}))
    AND (NOT $7::boolean OR (b.status IN (${sqlList(workedStates)}) AND c.status IN (${sqlList(unsentItemStatuses)})))
  -- The probe prefers a row whose next call is a create (a first attempt waiting): one that
  -- would only read back proves nothing about sends.
  ORDER BY ($7::boolean AND c.status = ${sqlName(waitingStatus)} AND c.attempt = 1) DESC, c."batchId", c.line
  LIMIT $6
  FOR UPDATE OF c SKIP LOCKED
) AS picked
WHERE i.id = picked.id
RETURNING i.id::text AS id, i."batchId", i.line, i."paymentId", i.attempt, i."providerCode", i.amount::text AS amount, i.currency,
  i.fields, i."customFields", i.status::text AS status, i.retries, i."leaseToken"::text AS "leaseToken",
  (EXTRACT(EPOCH FROM now() - picked.since) * 1000)::float8 AS "waitedMs", picked."batchStatus"::text AS "batchStatus"`;

export function claimItems(
  query: SqlQuery,
  claim: { owner: string; token: string; leaseMs: number; inFlight: string[]; batchId: string | null; limit: number; probe?: boolean },
): Promise<ClaimedItem[]> {
  return query<ClaimedItem>(sql, [
    claim.owner,
    claim.token,
    claim.leaseMs,
    claim.inFlight,
    claim.batchId,
    claim.limit,
    claim.probe === true,
  ]);
}

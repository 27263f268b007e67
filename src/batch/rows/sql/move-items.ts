import type { SqlQuery } from '../../../db/database.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { applyFactsCte, type PaymentFact } from '../../../payments/sql/apply-facts.ts';
import type { BillingDetails } from '../../../payout/models.ts';
import { outboxCte } from '../../../outbound/index.ts';
import { rowEventsSelect } from './row-events.ts';
import {
  cancelCodes,
  cancelledAfterCreateMessageSql,
  cancelledStatus,
  rowOverrides,
  unpayableItemStatuses,
  type RowOverride,
} from '../../states/row-states.ts';

export type { PaymentFact };

/** One row's change of state after an upstream answer, with what it taught about the payment. */
export interface ItemMove {
  id: string;
  leaseToken: string;
  /** The state this worker last wrote: the write applies only if the row is still in it. */
  from: string;
  to: string;
  /**
   * READY → EXECUTING only while the batch runs; a cancelled batch's row ends CANCELLED
   * instead (batch.cancelled-after-create: the payment exists upstream, not executed).
   */
  onlyIfRunning: boolean;
  errorCode: string | null;
  errorMessage: string | null;
  billingDetails: BillingDetails | null;
  retries: number;
  /** When the row is due again, from the database's clock; null for now / never. */
  delayMs: number | null;
  finished: boolean;
  /** Give the lease up (the row is final, or waits for a later claim). */
  release: boolean;
  payment: PaymentFact | null;
}

export interface MoveResult {
  /** The row's state after the write, or null when it was no longer this worker's. */
  status: string | null;
  batchId: string | null;
  /** The payment's status when the fact advanced it (see payments/status.ts), else null. */
  paymentStatus: string | null;
}

/** Whether an override applies to the worker's write (`input`) in its batch (`b`). */
function applies(override: RowOverride): string {
  const conditions = [`input."to" = ${sqlName(override.writes)}`, `b.status IN (${sqlList(override.batch)})`];
  if (override.onlyIfRunning === true) conditions.splice(1, 0, 'input."onlyIfRunning"');
  return conditions.join(' AND ');
}

/** One rule per distinct override of the row table (several `from` states share one). */
const overrideRules = [
  ...new Map(
    rowOverrides.map((t) => [`${applies(t.override)} ${t.to} ${t.code}`, { when: applies(t.override), to: t.to, code: t.code }]),
  ).values(),
];

/** `CASE WHEN <override> THEN <value> … END` over the rules (NULL where none applies). */
function overrideCase(value: (rule: (typeof overrideRules)[number]) => string | null): string {
  const arms = overrideRules.flatMap((rule) => {
    const then = value(rule);
    return then === null ? [] : [`WHEN ${rule.when} THEN ${then}`];
  });
  return `(CASE ${arms.join(' ')} END)`;
}

/**
 * A group of row moves in one statement. Row writes are fenced by the lease token and the
 * state this worker last wrote, so a worker that lost a row changes nothing. Payment facts
 * are recorded whatever happened to the row (they are true either way), by the payments
 * module's CTEs (payments/sql/apply-facts.ts: only where payments/status.ts allows the
 * move, with a history entry each), in the same statement.
 */
const sql = `
WITH input AS (
  SELECT * FROM unnest(
    $1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::bool[], $6::text[], $7::text[], $8::jsonb[], $9::int[], $10::int[], $11::bool[], $12::bool[],
    $13::text[], $14::text[], $15::text[], $16::text[], $17::timestamptz[], $18::numeric[], $19::timestamptz[], $20::timestamptz[], $21::jsonb[], $22::text[], $23::int[])
  AS t(id, token, "from", "to", "onlyIfRunning", "errorCode", "errorMessage", "billingDetails", retries, "delayMs", finished, release,
    "paymentId", "payStatus", "payErrorCode", "payErrorMessage", "changedAt", commission, "upstreamCreatedAt", "expiresAt", "payBilling", source, "checkInMs")
), target AS (
  -- The row table's overrides (row-states.ts rowOverrides): a row the batch's cancel must end
  -- here (one about to be executed, or one going back to wait, PENDING or READY, which no
  -- claim may send again), or one about to be executed in a batch paused meanwhile, which
  -- waits READY for the resume.
  SELECT o.*, COALESCE(o.overridden = ${sqlName(cancelledStatus)}, false) AS cancelled
  FROM (
    SELECT input.*, ${overrideCase((rule) => sqlName(rule.to))} AS overridden, ${overrideCase((rule) => (rule.code === undefined ? null : `'${rule.code}'`))} AS "overrideCode"
    FROM input JOIN "BatchItem" AS i ON i.id = input.id JOIN "Batch" AS b ON b.id = i."batchId"
  ) AS o
), moved AS (
  UPDATE "BatchItem" AS i SET
    status = COALESCE(t.overridden, t."to")::"BatchItemStatus",
    -- Cancelled once created (CREATING or READY here): the upstream holds the payment READY until it expires.
    "errorCode" = COALESCE(t."overrideCode", t."errorCode"),
    "errorMessage" = CASE WHEN t."overrideCode" = '${cancelCodes.notSent}' THEN 'the batch was cancelled before this payment was sent'
      -- The expiry this answer brought, else the record's: read only for a cancelled row, off the pay path.
      WHEN t."overrideCode" = '${cancelCodes.afterCreate}' THEN ${cancelledAfterCreateMessageSql('COALESCE(t."expiresAt", (SELECT p."expiresAt" FROM "Payment" AS p WHERE p."paymentId" = i."paymentId"))')}
      ELSE t."errorMessage" END,
    "billingDetails" = COALESCE(t."billingDetails", i."billingDetails"),
    -- A row that can never be paid again keeps only its masked recipient (card-data.ts).
    fields = CASE WHEN t.cancelled OR t."to" IN (${sqlList(unpayableItemStatuses)}) THEN i.fields - '$sealed'::text ELSE i.fields END,
    retries = t.retries,
    "notBefore" = CASE WHEN t."delayMs" IS NULL THEN NULL ELSE now() + t."delayMs" * interval '1 millisecond' END,
    "finishedAt" = CASE WHEN t.finished OR t.cancelled THEN now() ELSE NULL END,
    "leaseOwner" = CASE WHEN t.release OR t.overridden IS NOT NULL THEN NULL ELSE i."leaseOwner" END,
    "leaseToken" = CASE WHEN t.release OR t.overridden IS NOT NULL THEN NULL ELSE i."leaseToken" END,
    "leaseExpiresAt" = CASE WHEN t.release OR t.overridden IS NOT NULL THEN NULL ELSE i."leaseExpiresAt" END,
    "updatedAt" = now()
  FROM target AS t
  WHERE i.id = t.id AND i."leaseToken" = t.token AND i.status::text = t."from"
  RETURNING i.id, i.status::text AS status, i."batchId", i.line, i."paymentId", i.amount, i.currency, i."errorCode", i."errorMessage", i.fields
), ${applyFactsCte('input')},
-- A row that came to rest is an outbound event, committed with its move (outbound/).
${outboxCte('row_events', rowEventsSelect('moved', `(SELECT COALESCE(input.commission, p.commission) FROM input LEFT JOIN "Payment" AS p ON p."paymentId" = input."paymentId" WHERE input.id = r.id)`))}
SELECT input.id::text AS id, moved.status, moved."batchId", applied_facts.status AS "paymentStatus"
FROM input LEFT JOIN moved ON moved.id = input.id LEFT JOIN applied_facts ON applied_facts."paymentId" = input."paymentId"`;

export async function moveItems(query: SqlQuery, moves: ItemMove[]): Promise<MoveResult[]> {
  const column = <T>(pick: (move: ItemMove) => T) => moves.map(pick);
  const fact = <T>(pick: (fact: PaymentFact) => T) => moves.map((move) => (move.payment === null ? null : pick(move.payment)));
  const json = (value: object | null) => (value === null ? null : JSON.stringify(value));
  const rows = await query<{ id: string; status: string | null; batchId: string | null; paymentStatus: string | null }>(sql, [
    column((m) => m.id),
    column((m) => m.leaseToken),
    column((m) => m.from),
    column((m) => m.to),
    column((m) => m.onlyIfRunning),
    column((m) => m.errorCode),
    column((m) => m.errorMessage),
    column((m) => json(m.billingDetails)),
    column((m) => m.retries),
    column((m) => m.delayMs),
    column((m) => m.finished),
    column((m) => m.release),
    column((m) => m.payment?.paymentId ?? null),
    fact((f) => f.status),
    fact((f) => f.errorCode),
    fact((f) => f.errorMessage),
    fact((f) => f.changedAt),
    fact((f) => f.commission),
    fact((f) => f.upstreamCreatedAt),
    fact((f) => f.expiresAt),
    fact((f) => json(f.billingDetails)),
    fact((f) => f.source),
    fact((f) => f.checkInMs),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return moves.map((move) => {
    const row = byId.get(move.id);
    return { status: row?.status ?? null, batchId: row?.batchId ?? null, paymentStatus: row?.paymentStatus ?? null };
  });
}

import type { SqlQuery } from '../../../db/database.ts';
import { BatchItemStatus } from '../../../db/generated/enums.ts';
import { sqlList, sqlName } from '../../../db/sql-list.ts';
import { recordIntentsCte } from '../../../payments/sql/record-intents.ts';
import { payingStates } from '../../states/batch-states.ts';

export interface CreateIntent {
  id: string;
  leaseToken: string;
  paymentId: string;
  amount: string;
  currency: string;
  providerCode: string;
  /** Masked: the payment record never holds a full card number. */
  recipient: Record<string, string>;
  webhookUrl: string | null;
  customFields: Record<string, string> | null;
  batchId: string;
  line: number;
}

const creating = BatchItemStatus.CREATING;
/** A row is claimed PENDING, or CREATING again when its create's answer was lost. */
const startsCreating = [BatchItemStatus.PENDING, creating];

/**
 * The write that must be durable before a create is sent, for a whole group of rows in one
 * statement: each row becomes CREATING (only while this worker's token still holds it), and
 * its payment is recorded as PENDING with its first history entry (by payments/, which owns
 * the payment record: payments/sql/record-intents.ts). A row whose batch no longer pays (it
 * was paused or cancelled since the claim) is let go as it is, with no create: a cancel
 * committed before this write binds it (decision 0027).
 */
const sql = `
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::numeric[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::jsonb[], $10::text[], $11::int[])
    AS t(id, token, "paymentId", amount, currency, "providerCode", recipient, "webhookUrl", "customFields", "batchId", line)
), written AS (
  UPDATE "BatchItem" AS i SET
    status = CASE WHEN b.status IN (${sqlList(payingStates)}) THEN ${sqlName(creating)}::"BatchItemStatus" ELSE i.status END,
    "leaseOwner" = CASE WHEN b.status IN (${sqlList(payingStates)}) THEN i."leaseOwner" END,
    "leaseToken" = CASE WHEN b.status IN (${sqlList(payingStates)}) THEN i."leaseToken" END,
    "leaseExpiresAt" = CASE WHEN b.status IN (${sqlList(payingStates)}) THEN i."leaseExpiresAt" END,
    "updatedAt" = now()
  FROM input JOIN "Batch" AS b ON b.id = input."batchId"
  WHERE i.id = input.id AND i."leaseToken" = input.token AND i.status IN (${sqlList(startsCreating)})
  RETURNING i.id, i.status = ${sqlName(creating)} AND i."leaseToken" IS NOT NULL AS moved
), to_record AS (
  SELECT input.* FROM input JOIN written ON written.id = input.id WHERE written.moved
), ${recordIntentsCte('to_record', '$12')}
SELECT id::text AS id FROM written WHERE moved`;

/** Returns, per intent in order, whether the row is still this worker's (now CREATING). */
export async function beginCreate(query: SqlQuery, agentId: string, intents: CreateIntent[]): Promise<boolean[]> {
  const column = <T>(pick: (intent: CreateIntent) => T) => intents.map(pick);
  const json = (value: Record<string, string> | null) => (value === null ? null : JSON.stringify(value));
  const rows = await query<{ id: string }>(sql, [
    column((i) => i.id),
    column((i) => i.leaseToken),
    column((i) => i.paymentId),
    column((i) => i.amount),
    column((i) => i.currency),
    column((i) => i.providerCode),
    column((i) => JSON.stringify(i.recipient)),
    column((i) => i.webhookUrl),
    column((i) => json(i.customFields)),
    column((i) => i.batchId),
    column((i) => i.line),
    agentId,
  ]);
  const moved = new Set(rows.map((row) => row.id));
  return intents.map((intent) => moved.has(intent.id));
}

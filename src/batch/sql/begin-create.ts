import type { SqlQuery } from '../../db/database.ts';

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

/**
 * The write that must be durable before a create is sent, for a whole group of rows in one
 * statement: each row becomes CREATING (only while this worker's token still holds it), and
 * its payment is recorded as PENDING with its first history entry.
 */
const sql = `
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::numeric[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::jsonb[], $10::text[], $11::int[])
    AS t(id, token, "paymentId", amount, currency, "providerCode", recipient, "webhookUrl", "customFields", "batchId", line)
), moved AS (
  UPDATE "BatchItem" AS i SET status = 'CREATING', "updatedAt" = now()
  FROM input
  WHERE i.id = input.id AND i."leaseToken" = input.token AND i.status IN ('PENDING', 'CREATING')
  RETURNING i.id
), intents AS (
  INSERT INTO "Payment" ("paymentId", "agentId", amount, currency, "providerCode", recipient, "webhookUrl", "customFields", "batchId", "batchRow", status, "updatedAt")
  SELECT input."paymentId", $12, input.amount, input.currency, input."providerCode", input.recipient, input."webhookUrl", input."customFields",
    input."batchId", input.line, 'PENDING', now()
  FROM input JOIN moved ON moved.id = input.id
  ON CONFLICT ("paymentId") DO NOTHING
  RETURNING "paymentId"
), history AS (
  INSERT INTO "PaymentStatusEvent" ("paymentId", status, source)
  SELECT "paymentId", 'PENDING', 'request' FROM intents
)
SELECT id::text AS id FROM moved`;

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

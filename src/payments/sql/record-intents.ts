import { TrackedStatus } from '../../db/generated/enums.ts';
import { sqlName } from '../../db/sql-list.ts';
import type { StatusSource } from '../payment-records.ts';

const source: StatusSource = 'request';

/**
 * CTEs that record payments as PENDING before their create is sent, each with its first
 * history entry, for a statement that writes more (the batch worker's begin-create, which
 * marks its rows CREATING in the same statement so that both are durable or neither).
 * `intents` names a relation with the columns "paymentId", amount, currency,
 * "providerCode", recipient (masked), "webhookUrl", "customFields", "batchId", line;
 * `agentId` is a SQL expression (a bind parameter). A payment recorded already is left as
 * it is (its create is being sent again). Defines `recorded_intents("paymentId")`.
 */
export function recordIntentsCte(intents: string, agentId: string): string {
  return `recorded_intents AS (
  INSERT INTO "Payment" ("paymentId", "agentId", amount, currency, "providerCode", recipient, "webhookUrl", "customFields", "batchId", "batchRow", status, "updatedAt")
  SELECT i."paymentId", ${agentId}, i.amount, i.currency, i."providerCode", i.recipient, i."webhookUrl", i."customFields", i."batchId", i.line,
    ${sqlName(TrackedStatus.PENDING)}, now()
  FROM ${intents} AS i
  ON CONFLICT ("paymentId") DO NOTHING
  RETURNING "paymentId"
), recorded_intent_history AS (
  INSERT INTO "PaymentStatusEvent" ("paymentId", status, source)
  SELECT "paymentId", ${sqlName(TrackedStatus.PENDING)}, '${source}' FROM recorded_intents
)`;
}

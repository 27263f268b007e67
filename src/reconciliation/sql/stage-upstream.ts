import type { SqlQuery } from '../../db/database.ts';
import { maskRecipientFields } from '../../log/mask.ts';
import type { Payment } from '../../payout/models.ts';
import { LeaseLostError } from '../run-lease.ts';
import type { DaySink } from '../upstream-list-reader.ts';
import { heldRun } from './held-run.ts';

/**
 * Upstream payments into the run's staging table, masked. A payment read twice (the list
 * moved) keeps the later read: its status may have moved on meanwhile.
 */
const sql = `
WITH ${heldRun('$1', '$13')},
written AS (
INSERT INTO "ReconciliationUpstreamPayment"
  ("runId", "paymentId", "createdAt", "inPeriod", status, amount, currency, commission, "providerCode", recipient, "listRead")
SELECT $1, t.id, t.created::timestamptz, t.created::timestamptz >= $2 AND t.created::timestamptz < $3,
  t.status, t.amount, t.currency, t.commission, t.provider, t.recipient::jsonb, $12
FROM unnest($4::text[], $5::text[], $6::text[], $7::numeric[], $8::text[], $9::numeric[], $10::text[], $11::text[])
  AS t(id, created, status, amount, currency, commission, provider, recipient)
-- Only while this execution holds the run: one taken over stages nothing more.
WHERE EXISTS (SELECT 1 FROM held)
ON CONFLICT ("runId", "paymentId") DO UPDATE SET
  "createdAt" = EXCLUDED."createdAt", "inPeriod" = EXCLUDED."inPeriod", status = EXCLUDED.status,
  amount = EXCLUDED.amount, currency = EXCLUDED.currency, commission = EXCLUDED.commission,
  "providerCode" = EXCLUDED."providerCode", recipient = EXCLUDED.recipient, "listRead" = EXCLUDED."listRead"
RETURNING 1)
SELECT count(*)::int AS count FROM written`;

export interface StagingPeriod {
  runId: string;
  /** The execution's lease (run-lease.ts): nothing is staged once another holds the run. */
  leaseToken: string;
  startsAt: Date;
  endsAt: Date;
}

/**
 * One statement for many payments; a paymentId may appear once (the caller keeps the latest).
 * `listRead`: the list read they came from (upstream-list-reader.ts), 0 for a confirming read.
 * Throws LeaseLostError when the run is no longer this execution's.
 */
export async function stageUpstream(query: SqlQuery, period: StagingPeriod, payments: Payment[], listRead = 0): Promise<void> {
  if (payments.length === 0) return;
  const rows = await query<{ count: number }>(sql, [
    period.runId,
    period.startsAt,
    period.endsAt,
    payments.map((p) => p.paymentId),
    payments.map((p) => p.creationDateTime),
    payments.map((p) => p.status.value),
    payments.map((p) => p.amount.value),
    payments.map((p) => p.amount.currency),
    payments.map((p) => p.commission.value),
    payments.map((p) => p.recipientDetails.providerCode),
    payments.map((p) => JSON.stringify(maskRecipientFields(p.recipientDetails.fields))),
    listRead,
    period.leaseToken,
  ]);
  // Nothing written: the run is another execution's now.
  if ((rows[0]?.count ?? 0) === 0) throw new LeaseLostError();
}

/**
 * Pages from the reader, written in statements of up to `size` payments. Only the
 * unwritten buffer (of one list read) is held, so memory stays bounded whatever the day holds.
 */
export class StagingWriter implements DaySink {
  private readonly buffer = new Map<string, Payment>();
  private bufferRead = 0;

  constructor(
    private readonly query: SqlQuery,
    private readonly period: StagingPeriod,
    private readonly size = 2_000,
  ) {}

  async add(payments: Payment[], read: number): Promise<void> {
    if (read !== this.bufferRead) await this.flush();
    this.bufferRead = read;
    for (const payment of payments) {
      // Re-inserted so the later read is the one written.
      this.buffer.delete(payment.paymentId);
      this.buffer.set(payment.paymentId, payment);
    }
    if (this.buffer.size >= this.size) await this.flush();
  }

  /** Different payments staged by list read `read` (a payment read again later counts there). */
  async distinct(read: number): Promise<number> {
    await this.flush();
    const rows = await this.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM "ReconciliationUpstreamPayment" WHERE "runId" = $1 AND "listRead" = $2',
      [this.period.runId, read],
    );
    return rows[0]?.count ?? 0;
  }

  async flush(): Promise<void> {
    const payments = [...this.buffer.values()];
    this.buffer.clear();
    await stageUpstream(this.query, this.period, payments, this.bufferRead);
  }
}

export async function dropStaging(query: SqlQuery, runId: string): Promise<void> {
  await query('DELETE FROM "ReconciliationUpstreamPayment" WHERE "runId" = $1', [runId]);
}

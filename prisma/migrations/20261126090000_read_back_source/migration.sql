-- Data only (no schema change): the read-back of unsettled payments (payments/read-back.ts,
-- and the batch worker reading an IN_PROGRESS row) was recorded in the status history with
-- the source reconcile, a name that now belongs to the daily reconciliation alone. Its
-- entries become read-back. Entries written by a reconciliation repair stay reconcile: each
-- has an audit event reconciliation.repair for the same payment and status, committed with
-- it (a status is entered at most once per payment, so the pair names one entry).
-- (No quote marks or semicolons in these comments: a migration runner that splits
-- statements may not know comments.)
UPDATE "PaymentStatusEvent" AS e SET source = 'read-back'
WHERE e.source = 'reconcile'
  AND NOT EXISTS (
    SELECT 1 FROM "AuditEvent" AS a
    WHERE a.action = 'reconciliation.repair' AND a."paymentId" = e."paymentId" AND a.detail ->> 'to' = e.status::text
  );

import type { PrismaClient } from '../../src/db/database.ts';

/**
 * A test-only trigger on the scenario's own database that records, whoever makes them,
 * the changes of a row that leaves a finished state or starts a new attempt. The
 * worker's writes cannot be observed otherwise, and a late write from a worker that lost
 * its row (killed, paused, cut off from the database) shows up here as a row moving out
 * of a state it had finished in.
 */
export async function installTransitionAudit(prisma: PrismaClient): Promise<void> {
  await prisma.$executeRawUnsafe(`
    CREATE TABLE fault_suite_transition (
      id bigserial PRIMARY KEY,
      item_id bigint NOT NULL,
      line int NOT NULL,
      old_status text NOT NULL,
      new_status text NOT NULL,
      old_attempt int NOT NULL,
      new_attempt int NOT NULL,
      old_payment_id text NOT NULL,
      new_payment_id text NOT NULL,
      at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
  await prisma.$executeRawUnsafe(`
    CREATE FUNCTION fault_suite_record_transition() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.status IS DISTINCT FROM OLD.status OR NEW.attempt IS DISTINCT FROM OLD.attempt
         OR NEW."paymentId" IS DISTINCT FROM OLD."paymentId" THEN
        INSERT INTO fault_suite_transition (item_id, line, old_status, new_status, old_attempt, new_attempt, old_payment_id, new_payment_id)
        VALUES (NEW.id, NEW.line, OLD.status::text, NEW.status::text, OLD.attempt, NEW.attempt, OLD."paymentId", NEW."paymentId");
      END IF;
      RETURN NEW;
    END $$`);
  // Only what could be illegal is recorded, so the audit costs the paying path nothing.
  await prisma.$executeRawUnsafe(`
    CREATE TRIGGER fault_suite_transition AFTER UPDATE ON "BatchItem"
    FOR EACH ROW WHEN (
      OLD.status::text IN ('COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'NEEDS_REVIEW')
      OR NEW.attempt IS DISTINCT FROM OLD.attempt OR NEW."paymentId" IS DISTINCT FROM OLD."paymentId")
    EXECUTE FUNCTION fault_suite_record_transition()`);
}

const finalStatuses = ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'];

/**
 * Transitions no correct worker makes: out of a final state, except the retry of a
 * FAILED or EXPIRED row as a new attempt with a new paymentId; a new attempt or
 * paymentId any other way; and NEEDS_REVIEW moving anywhere but a final state (a later
 * read may settle it; it is never paid again automatically).
 */
export async function illegalTransitions(prisma: PrismaClient, batchId: string): Promise<string[]> {
  const rows = await prisma.$queryRawUnsafe<
    Array<{
      line: number;
      old_status: string;
      new_status: string;
      old_attempt: number;
      new_attempt: number;
      old_payment_id: string;
      new_payment_id: string;
      at: Date;
    }>
  >(
    `SELECT t.line, t.old_status, t.new_status, t.old_attempt, t.new_attempt, t.old_payment_id, t.new_payment_id, t.at
     FROM fault_suite_transition t JOIN "BatchItem" i ON i.id = t.item_id
     WHERE i."batchId" = $1 ORDER BY t.id`,
    batchId,
  );
  const illegal: string[] = [];
  for (const t of rows) {
    const retry =
      (t.old_status === 'FAILED' || t.old_status === 'EXPIRED') &&
      t.new_status === 'PENDING' &&
      t.new_attempt === t.old_attempt + 1 &&
      t.new_payment_id !== t.old_payment_id;
    const attemptChanged = t.new_attempt !== t.old_attempt || t.new_payment_id !== t.old_payment_id;
    const leavesFinal = finalStatuses.includes(t.old_status) && t.new_status !== t.old_status;
    const leavesReview = t.old_status === 'NEEDS_REVIEW' && !finalStatuses.includes(t.new_status);
    if (retry) continue;
    if (leavesFinal || leavesReview || attemptChanged) {
      illegal.push(
        `line ${t.line}: ${t.old_status} -> ${t.new_status} (attempt ${t.old_attempt} -> ${t.new_attempt}, ${t.old_payment_id} -> ${t.new_payment_id}) at ${t.at.toISOString()}`,
      );
    }
  }
  return illegal;
}

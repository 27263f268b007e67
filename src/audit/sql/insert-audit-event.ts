import type { SqlQuery } from '../../db/database.ts';
import type { AuditAction, AuditActor, AuditDetail } from '../audit.ts';

/**
 * One audit event written through a SqlQuery, for the processes that hold no Prisma client
 * (the batch worker: a scheduled batch's forecast found short). The same row recordAudit writes.
 */
export async function insertAuditEvent(
  query: SqlQuery,
  by: AuditActor,
  entry: { action: AuditAction; batchId: string; detail: AuditDetail },
): Promise<void> {
  await query(`INSERT INTO "AuditEvent" (action, actor, role, "batchId", "requestId", detail) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`, [
    entry.action,
    by.actor,
    by.role,
    entry.batchId,
    by.requestId,
    JSON.stringify({ ...entry.detail, ...by.detail }),
  ]);
}

import pLimit from 'p-limit';
import { settleRowsFromPayments } from '../batch/index.ts';
import type { PrismaClient, SqlQuery } from '../db/database.ts';
import { DiscrepancyCode, DiscrepancyResolution } from '../db/generated/enums.ts';
import type { Logger } from '../log/logger.ts';
import { recordAudit, systemActor } from '../audit/audit.ts';
import type { PayoutClient } from '../payout/client.ts';
import type { PaymentTracker } from '../payments/tracker.ts';
import { finalStatuses } from './discrepancy-codes.ts';

export interface RepairDeps {
  prisma: PrismaClient;
  query: SqlQuery;
  client: PayoutClient;
  tracker: PaymentTracker;
  logger: Logger;
}

const PAGE = 200;
const READ_CONCURRENCY = 4;

/**
 * The one change a reconciliation makes: a payment the upstream holds final and the
 * gateway does not takes the upstream's status (and the details it had not recorded, never
 * replacing one it had), by the rule every read-back follows
 * (payments/status.ts through tracker.applyUpstream), from a fresh read of that payment,
 * with a `reconciliation.repair` audit event in the same transaction. Batch rows left
 * IN_PROGRESS take it too (as after a webhook); NEEDS_REVIEW rows stay for a person.
 * Nothing is created or executed. Returns how many were repaired.
 */
export async function repairFromUpstream(deps: RepairDeps, runId: string, onRequest: () => void): Promise<number> {
  const limit = pLimit(READ_CONCURRENCY);
  let repaired = 0;
  let after = 0n;
  for (;;) {
    const page = await deps.prisma.reconciliationDiscrepancy.findMany({
      where: {
        runId,
        code: DiscrepancyCode.STATUS_DIFFERS,
        finalSide: 'UPSTREAM',
        resolution: DiscrepancyResolution.OPEN,
        id: { gt: after },
      },
      orderBy: { id: 'asc' },
      take: PAGE,
      select: { id: true, paymentId: true, gatewayStatus: true },
    });
    if (page.length === 0) break;
    after = page.at(-1)!.id;
    const results = await Promise.all(
      page.map((discrepancy) =>
        limit(async () => {
          onRequest();
          const payment = await deps.client.getPayment(discrepancy.paymentId);
          if (!(finalStatuses as readonly string[]).includes(payment.status.value)) return false;
          // The status, and details the gateway never learned (a create whose answer was lost):
          // a commission it recorded that differs stays as recorded, for a person.
          const outcome = await deps.tracker.applyUpstream(discrepancy.paymentId, { status: payment.status, payment }, 'reconcile', {
            keepRecorded: true,
            onApplied: async (tx) => {
              await tx.reconciliationDiscrepancy.update({ where: { id: discrepancy.id }, data: { resolution: 'REPAIRED' } });
              await recordAudit(
                tx,
                { ...systemActor, actor: 'reconciliation' },
                {
                  action: 'reconciliation.repair',
                  paymentId: discrepancy.paymentId,
                  detail: { runId, from: discrepancy.gatewayStatus, to: payment.status.value },
                },
              );
            },
          });
          return outcome === 'applied';
        }),
      ),
    );
    repaired += results.filter(Boolean).length;
  }
  if (repaired > 0) {
    const batches = await settleRowsFromPayments(deps.query);
    deps.logger.info({ repaired, batches }, 'payments repaired from the upstream');
  }
  return repaired;
}

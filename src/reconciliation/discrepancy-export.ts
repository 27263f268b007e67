import type { PrismaClient } from '../db/database.ts';
import { decimalText } from '../money/money-wire.ts';

/** Read this many at a time: an export of any size keeps memory flat. */
const PAGE = 1_000;

export const discrepancyColumns = [
  'code',
  'resolution',
  'payment_id',
  'batch_id',
  'batch_row',
  'amount',
  'currency',
  'gateway_status',
  'upstream_status',
  'final_side',
  'gateway_value',
  'upstream_value',
  'payment_created_at',
] as const;

/**
 * A run's discrepancies as report rows (header first) for batch-export.ts's formats, in
 * the order the run lists them. Values are what the run stored: recipients already masked.
 */
export async function* discrepancyRows(prisma: PrismaClient, runId: string): AsyncGenerator<string[]> {
  yield [...discrepancyColumns];
  let after = 0n;
  for (;;) {
    const page = await prisma.reconciliationDiscrepancy.findMany({
      where: { runId, id: { gt: after } },
      orderBy: { id: 'asc' },
      take: PAGE,
    });
    if (page.length === 0) return;
    for (const d of page) {
      yield [
        d.code,
        d.resolution,
        d.paymentId,
        d.batchId ?? '',
        d.batchRow === null ? '' : String(d.batchRow),
        decimalText(d.amount) ?? '',
        d.currency ?? '',
        d.gatewayStatus ?? '',
        d.upstreamStatus ?? '',
        d.finalSide ?? '',
        d.gatewayValue ?? '',
        d.upstreamValue ?? '',
        d.paymentCreatedAt?.toISOString() ?? '',
      ];
    }
    after = page.at(-1)!.id;
  }
}

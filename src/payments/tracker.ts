import type { Prisma } from '../db/generated/client.ts';
import { BatchItemStatus } from '../db/generated/enums.ts';
import { PaymentRecords } from './payment-records.ts';
import { needsReadBack } from './status.ts';

export {
  READ_BACK_FIRST_DELAY_MS,
  READ_BACK_MAX_DELAY_MS,
  type ApplyOutcome,
  type PaymentIntent,
  type StatusSource,
  type UpstreamUpdate,
} from './payment-records.ts';

/**
 * A cancelled batch row (batch/states/row-states.ts cancelledStatus), by the Prisma enum's
 * member: payments/ sits below batch/ and does not import it (batch/ imports payments/).
 */
const cancelledRow = BatchItemStatus.CANCELLED;

export const trackedPaymentInclude = { history: { orderBy: { id: 'asc' } } } as const;
export type TrackedPayment = Prisma.PaymentGetPayload<{ include: typeof trackedPaymentInclude }>;

/**
 * The gateway's record of every payment: its writes are PaymentRecords' (payment-records.ts),
 * its reads are here.
 */
export class PaymentTracker extends PaymentRecords {
  find(paymentId: string): Promise<TrackedPayment | null> {
    return this.prisma.payment.findUnique({ where: { paymentId }, include: trackedPaymentInclude });
  }

  /**
   * The batch row of a payment when that row was cancelled: its payment, created upstream
   * and never executed, must stay so (payment-service.ts refuses to execute it).
   */
  cancelledBatchRow(paymentId: string): Promise<{ batchId: string; line: number } | null> {
    return this.prisma.batchItem.findFirst({ where: { paymentId, status: cancelledRow }, select: { batchId: true, line: true } });
  }

  /** Of these paymentIds, those whose batch row was cancelled, in one query (GraphQL's Payment.batchCancelled). */
  async cancelledBatchPayments(paymentIds: readonly string[]): Promise<Set<string>> {
    const rows = await this.prisma.batchItem.findMany({
      where: { paymentId: { in: [...paymentIds] }, status: cancelledRow },
      select: { paymentId: true },
    });
    return new Set(rows.map((row) => row.paymentId));
  }

  /** Records for a page of payments, in one query. */
  async findMany(paymentIds: string[]): Promise<Map<string, TrackedPayment>> {
    const rows = await this.prisma.payment.findMany({
      where: { paymentId: { in: paymentIds } },
      include: trackedPaymentInclude,
    });
    return new Map(rows.map((row) => [row.paymentId, row]));
  }

  /** Payments due for a read-back, oldest due first. */
  /** When the next payment comes due for a read-back, in milliseconds from now; null when none waits. */
  async nextReadBackInMs(): Promise<number | null> {
    const next = await this.prisma.payment.findFirst({
      where: { nextCheckAt: { not: null }, status: { in: [...needsReadBack] } },
      orderBy: { nextCheckAt: 'asc' },
      select: { nextCheckAt: true },
    });
    return next?.nextCheckAt == null ? null : next.nextCheckAt.getTime() - this.now().getTime();
  }

  async dueForReadBack(limit: number): Promise<string[]> {
    const rows = await this.prisma.payment.findMany({
      where: { nextCheckAt: { lte: this.now() }, status: { in: [...needsReadBack] } },
      orderBy: { nextCheckAt: 'asc' },
      take: limit,
      select: { paymentId: true },
    });
    return rows.map((row) => row.paymentId);
  }
}

import type { TrackedStatus } from '../db/generated/enums.ts';
import { sqlOf } from '../db/database.ts';
import type { Prisma } from '../db/generated/client.ts';
import { recordEvents } from '../outbound/index.ts';
import { finalTracked, paymentStates } from './status.ts';
import { decimalText } from '../money/money-wire.ts';

/**
 * A single payment (createPayment, not a batch row: its row reports itself) that reached an
 * end is an outbound event, written in the transaction of the move: payment.paid, or
 * payment.failed with the code and words; both name the payee (null without one), never its
 * account. A create refused or not sent (REJECTED) is no end: nothing exists upstream and the
 * same paymentId may be sent again and paid, so it is payment.rejected, which says so
 * (docs/decisions/0026-final-outcome-events.md).
 */
export async function recordPaymentEnd(tx: Prisma.TransactionClient, paymentId: string, status: TrackedStatus): Promise<void> {
  const rejected = status === paymentStates.rejected;
  if (!finalTracked.has(status) && !rejected) return;
  const payment = await tx.payment.findUnique({
    where: { paymentId },
    select: {
      batchId: true,
      amount: true,
      currency: true,
      commission: true,
      errorCode: true,
      errorMessage: true,
      providerCode: true,
      payeeId: true,
    },
  });
  if (payment === null || payment.batchId !== null) return;
  const paid = status === paymentStates.completed;
  await recordEvents(sqlOf(tx), [
    {
      type: paid ? 'payment.paid' : rejected ? 'payment.rejected' : 'payment.failed',
      subjectId: paymentId,
      data: {
        paymentId,
        status,
        provider: payment.providerCode,
        amount: decimalText(payment.amount),
        currency: payment.currency,
        // The company's id for the person (createPayment's payee): what a receiver files the payment under.
        payee: payment.payeeId,
        ...(paid ? { commission: decimalText(payment.commission) } : { code: payment.errorCode, message: payment.errorMessage }),
      },
    },
  ]);
}

/**
 * Every outbound event type, with what its `data` carries: the receiver acts on it without
 * calling back. Card numbers, keys and secrets are never in `data` (a card is its mask).
 * The README's "Events" section and docs/api/events.md list these; test/outbound checks
 * that each documented type is here and the other way round.
 */
export const eventTypes = {
  'batch.imported': 'A payroll file was read. data: batchId, fileName, status (VALIDATED or REJECTED), rows, validRows, heldRows, problems (count by code), totalAmount, currency.',
  'batch.approved': 'A person approved the batch. data: batchId, approvedBy, includeHeld, validRowsOnly, rowsToPay, amountToPay, currency.',
  'batch.scheduled': 'The batch was approved (or rescheduled) to pay at a set time. data: batchId, payAt, rowsToPay, amountToPay, currency, by.',
  'batch.started': 'The batch began paying. data: batchId, rowsToPay, amountToPay, currency.',
  'batch.paused': 'The batch stopped sending new payments for a while. data: batchId, reason (PERSON or FUNDS), by.',
  'batch.resumed': 'The batch pays on. data: batchId, by (a person, or funds when the balance came to cover it).',
  'batch.completed': 'Every row of the batch was paid. data: batchId and totals.',
  'batch.completed_with_failures': 'The batch ended with rows that were not paid. data: batchId and totals.',
  'batch.cancelled': 'The batch was cancelled and the payments in flight ended: nothing more is sent. data: batchId and totals (rows paid, not paid, cancelled).',
  'batch_row.paid': 'A row of a batch was paid. data: batchId, line, paymentId, amount, currency, commission, payee mask.',
  'batch_row.failed': 'A row of a batch was not paid, and will not be unless a person pays failed rows again. data: batchId, line, paymentId, amount, currency, code, message (plain words).',
  'batch_row.retried': 'Not an outcome: a person paid a finished batch\'s failed rows again (retryFailedItems); the row\'s earlier final event is superseded and its outcome comes again under a new paymentId. data: batchId, line, paymentId (the new one), previousPaymentId, previousStatus, amount, currency, by.',
  'batch_row.cancelled': 'A row of a cancelled batch that was not paid: never sent (code batch.cancelled), or created and not executed (batch.cancelled-after-create). data: batchId, line, paymentId, amount, currency, code, message.',
  'batch_row.needs_review': 'A row whose outcome no read settles: a person decides. data: batchId, line, paymentId, message.',
  'batch_row.settled_by_review': 'A row under review settled by a read or a person: paid, not paid, or not to be paid (a row read still in progress is told when it ends, as batch_row.paid or failed). data: batchId, line, paymentId, status, by.',
  'payment.paid': 'A single payment (createPayment) completed. data: paymentId, amount, currency, payee, commission.',
  'payment.failed': 'A single payment ended unpaid (FAILED or EXPIRED): final under its paymentId. data: paymentId, amount, currency, payee, code, message.',
  'payment.rejected': 'Not an outcome: a single payment\'s create was refused or not sent, nothing exists upstream under its paymentId, and the same paymentId may be sent again. data: paymentId, amount, currency, payee, code, message.',
  'reconciliation.finished': 'A reconciliation run ended. data: runId, day, status, discrepancies.',
  'event_subscription.disabled': 'A subscription was turned off after failing for EVENT_RETRY_FOR_MS. data: subscriptionId, url, failingSince, lastOutcome.',
} as const;

export type EventType = keyof typeof eventTypes;

/**
 * The events that tell a payment's or a row's outcome (docs/decisions/0026-final-outcome-events.md).
 * `final`: nothing will change it under that paymentId, and for a row nothing will pay it
 * unless a person pays failed rows again; no other outcome event follows, but after
 * `reopens`. `not-final`: what stands now; a final one follows, or, for payment.rejected,
 * maybe none (nothing exists upstream until the same paymentId is sent again). `reopens`: a
 * person's retryFailedItems supersedes the row's final event; its next outcome follows.
 */
export const outcomeEvents = {
  'batch_row.paid': 'final',
  'batch_row.failed': 'final',
  'batch_row.cancelled': 'final',
  'batch_row.settled_by_review': 'final',
  'batch_row.needs_review': 'not-final',
  'batch_row.retried': 'reopens',
  'payment.paid': 'final',
  'payment.failed': 'final',
  'payment.rejected': 'not-final',
} as const satisfies Partial<Record<EventType, 'final' | 'not-final' | 'reopens'>>;

export const eventTypeNames = Object.keys(eventTypes) as EventType[];

export function isEventType(name: string): name is EventType {
  return Object.hasOwn(eventTypes, name);
}

/** Totals a batch's ending events carry: money as decimal strings. */
export interface BatchTotals {
  paidRows: number;
  paidAmount: string;
  /** FAILED, EXPIRED and NEEDS_REVIEW rows: sent and not paid (or for a person to settle). */
  failedRows: number;
  failedAmount: string;
  /** CANCELLED rows: never sent, or created and not executed, for the batch was cancelled (or a person chose not to pay). */
  cancelledRows: number;
  cancelledAmount: string;
  heldRows: number;
  heldAmount: string;
  commission: string;
  currency: string;
}

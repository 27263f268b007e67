const batchRow = ['batchId', 'line', 'paymentId', 'status', 'amount', 'currency', 'commission', 'code', 'message', 'recipient'] as const;
/** Every batch lifecycle event (batch/events/sql/batch-events-sql.ts): rowsToPay and amountToPay are rowsLeft and amountLeft under their old names. */
const batchMove = ['batchId', 'name', 'payAt', 'rowsLeft', 'amountLeft', 'rowsToPay', 'amountToPay', 'currency'] as const;
const batchEnd = ['batchId', 'status', 'totals'] as const;

/**
 * Every outbound event type: when it is sent and every field of its `data`, each present in
 * every event of the type (null when it has no value), so the receiver acts on it without
 * calling back. Card numbers, keys and secrets are never in `data` (a card is its mask).
 * The README's "Events" section and docs/api/events.md list these; test/outbound checks
 * that each documented type and field is here and the other way round, and that events carry
 * exactly these fields.
 */
export const eventTypes = {
  'batch.imported': {
    sent: 'A payroll file was read.',
    fields: [
      'batchId',
      'name',
      'fileName',
      'status',
      'rows',
      'validRows',
      'invalidRows',
      'heldRows',
      'heldAmount',
      'changedAccountRows',
      'totalAmount',
      'currency',
      'errors',
      'warnings',
      'problems',
      'uploadedBy',
    ],
  },
  'batch.approved': {
    sent: 'The approvals the policy asks for were given.',
    fields: [...batchMove, 'approvedBy', 'approvals', 'includeHeld', 'includeChangedAccounts', 'validRowsOnly'],
  },
  'batch.scheduled': {
    sent: 'The batch was approved (or rescheduled) to pay at a set time.',
    fields: [...batchMove, 'by', 'rescheduledFrom'],
  },
  'batch.started': { sent: 'The batch began paying: at approval, or at its time (by schedule).', fields: [...batchMove, 'by'] },
  'batch.paused': { sent: 'The batch stopped sending new payments for a while.', fields: [...batchMove, 'reason', 'by'] },
  'batch.resumed': { sent: 'The batch pays on.', fields: [...batchMove, 'by', 'pauseReason', 'pausedAt', 'pausedFor'] },
  'batch.completed': { sent: 'Every row of the batch was paid.', fields: batchEnd },
  'batch.completed_with_failures': { sent: 'The batch ended with rows that were not paid.', fields: batchEnd },
  'batch.cancelled': { sent: 'The batch was cancelled, once the payments in flight ended and each row’s end was told.', fields: batchEnd },
  'batch_row.paid': { sent: 'A row of a batch was paid.', fields: batchRow },
  'batch_row.failed': {
    sent: 'A row of a batch was not paid, for good unless a person pays failed rows again (batch_row.retried).',
    fields: batchRow,
  },
  'batch_row.cancelled': {
    sent: 'A row of an approved batch was cancelled: never sent (code batch.cancelled), or created and not executed (batch.cancelled-after-create); told with the batch’s end.',
    fields: batchRow,
  },
  'batch_row.retried': {
    sent: 'Not an outcome: a person paid a finished batch’s failed rows again (retryFailedItems); the row’s earlier final event is superseded, its next outcome comes under the new paymentId.',
    fields: ['batchId', 'line', 'paymentId', 'previousPaymentId', 'previousStatus', 'amount', 'currency', 'by'],
  },
  'batch_row.needs_review': { sent: 'No read settles a row’s outcome: a person decides.', fields: batchRow },
  'batch_row.settled_by_review': {
    sent: 'A review (a read or a person) settled such a row: paid, not paid, or not to be paid (a row read still in progress is told when it ends, as batch_row.paid or failed).',
    fields: ['batchId', 'line', 'paymentId', 'status', 'amount', 'currency', 'code', 'message', 'by'],
  },
  'payment.paid': {
    sent: 'A single payment (createPayment) completed.',
    fields: ['paymentId', 'status', 'provider', 'amount', 'currency', 'payee', 'commission'],
  },
  'payment.failed': {
    sent: 'A single payment ended unpaid: FAILED or EXPIRED at the partner, final under its paymentId.',
    fields: ['paymentId', 'status', 'provider', 'amount', 'currency', 'payee', 'code', 'message'],
  },
  'payment.rejected': {
    sent: 'Not an outcome: a single payment’s create was refused or never reached the partner (REJECTED); nothing exists under its paymentId, which may be sent again.',
    fields: ['paymentId', 'status', 'provider', 'amount', 'currency', 'payee', 'code', 'message'],
  },
  'reconciliation.finished': {
    sent: 'A reconciliation run ended.',
    fields: ['runId', 'status', 'startsAt', 'endsAt', 'discrepancies', 'repaired', 'open', 'countsByCode', 'error'],
  },
  'event_subscription.disabled': {
    sent: 'A subscription was turned off after failing for EVENT_RETRY_FOR_MS.',
    fields: ['subscriptionId', 'url', 'failingSince', 'lastOutcome', 'lastStatusCode'],
  },
} as const satisfies Record<string, { sent: string; fields: readonly string[] }>;

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

/** What eventTypes (GraphQL) and `payout events types` say of a type: when, and its fields. */
export function eventTypeDescription(type: EventType): string {
  return `${eventTypes[type].sent} data: ${eventTypes[type].fields.join(', ')}.`;
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

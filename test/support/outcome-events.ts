import { outcomeEvents } from '../../src/outbound/event-types.ts';

/** An event as a receiver or the outbox has it: its id, type and data (in the order it came). */
export interface OutcomeEventLike {
  id: string;
  type: string;
  data: Record<string, any>;
}

/**
 * The thing an outcome is about: a batch's row (batchId and line: a row keeps its line when
 * it is paid again under a new paymentId), or a single payment (its paymentId).
 */
function subjectOf(event: OutcomeEventLike): string | undefined {
  if (event.type.startsWith('batch_row.')) return `row ${String(event.data.batchId)} line ${String(event.data.line)}`;
  if (event.type.startsWith('payment.')) return `payment ${String(event.data.paymentId)}`;
  return undefined;
}

/**
 * docs/decisions/0026-final-outcome-events.md: once an event of a final outcome is sent for a
 * payment or a row, no other outcome event (final or not) follows for it, unless a
 * batch_row.retried (a person paid failed rows again) reopened the row first. `events` in
 * the order they arrived (repeats of one id, at least once delivery, are allowed). Names each
 * subject whose story breaks the rule, with the types in order.
 */
export function outcomeContradictions(events: readonly OutcomeEventLike[]): string[] {
  const finalOf = new Map<string, OutcomeEventLike>();
  const story = new Map<string, string[]>();
  const broken = new Set<string>();
  const seen = new Set<string>();
  for (const event of events) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const kind = outcomeEvents[event.type as keyof typeof outcomeEvents];
    const subject = subjectOf(event);
    if (kind === undefined || subject === undefined) continue;
    story.set(subject, [
      ...(story.get(subject) ?? []),
      `${event.type} (${String(event.data.status)}${event.data.code == null ? '' : ` ${String(event.data.code)}`})`,
    ]);
    if (kind === 'reopens') finalOf.delete(subject);
    else if (finalOf.has(subject)) broken.add(subject);
    else if (kind === 'final') finalOf.set(subject, event);
  }
  return [...broken].map((subject) => `${subject}: ${story.get(subject)!.join(' → ')}`);
}

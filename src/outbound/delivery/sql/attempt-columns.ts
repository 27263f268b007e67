/** A delivery attempt as the log keeps it. */
export interface Attempt {
  eventId: string;
  eventType: string;
  sequence: number;
  attempt: number;
  outcome: string;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
}

/** Attempts as the column arrays unnest takes, in the order of logAttempts' and windowDelivered's statements. */
export function attemptColumns(attempts: readonly Attempt[]): unknown[] {
  return [
    attempts.map((a) => a.eventId),
    attempts.map((a) => a.eventType),
    attempts.map((a) => a.sequence),
    attempts.map((a) => a.attempt),
    attempts.map((a) => a.outcome),
    attempts.map((a) => a.statusCode),
    attempts.map((a) => a.durationMs),
    attempts.map((a) => a.excerpt),
  ];
}

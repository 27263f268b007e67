/** The spec's dateTime: YYYY-MM-DDThh:mm:ssTZD; the sandbox writes UTC as +00:00. */
export function formatDateTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** YYYY-MM-DD of an instant, in UTC. */
export function utcDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

export const DAY_MS = 24 * 60 * 60 * 1000;

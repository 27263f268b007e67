import { useI18n, type Translator } from './i18n.ts';
import type { ReconciliationRun } from './queries.ts';

/* What both reconciliation pages show of a run (reconciliation-page.tsx, reconciliation-run-page.tsx). */

const runTone: Record<string, string> = { RUNNING: 'info', COMPLETED: 'good', FAILED: 'bad' };

export function RunStatus({ run }: { run: Pick<ReconciliationRun, 'status'> }) {
  const { t } = useI18n();
  return <span class={`badge badge-${runTone[run.status] ?? 'plain'}`}>{t(`recon.status.${run.status}` as 'recon.status.RUNNING')}</span>;
}

/** A run's days ("2026-11-27", days of its time zone) as the page's language writes a day. */
export function period(run: Pick<ReconciliationRun, 'from' | 'to'>, i18n: Translator): string {
  const day = (value: string) => {
    const at = new Date(`${value}T00:00:00Z`);
    // Formatted in UTC, where the string's midnight is: the day itself, not a moment in the reader's zone.
    return Number.isNaN(at.getTime()) ? value : new Intl.DateTimeFormat(i18n.tag, { dateStyle: 'medium', timeZone: 'UTC' }).format(at);
  };
  return run.from === run.to ? day(run.from) : `${day(run.from)} – ${day(run.to)}`;
}

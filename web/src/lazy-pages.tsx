import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Access } from './api.ts';
import { useI18n } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';
import type { BatchDetail } from './queries.ts';
// In the page's one style sheet: a chunk with a style sheet of its own would bring Vite's preload helper into the main script.
import './review-panel.css';

/**
 * Pages and panels a clerk paying a payroll does not open every time (finding a payment, the
 * reconciliation pages, the panel for rows under review), loaded when opened as chunks of their own, so that the script every
 * clerk loads stays within its budget (test/web/clerk-journey.test.ts); the Events page does
 * the same for admins (events-entry.tsx).
 */
function useModule<T>(load: () => Promise<T>): { module: T | undefined; fallback: ComponentChildren } {
  const { t } = useI18n();
  const [module, setModule] = useState<T | undefined>();
  const [error, setError] = useState<unknown>();
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    setError(undefined);
    load().then(
      (loaded) => current && setModule(() => loaded),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [attempt]);
  if (error !== undefined) return { module, fallback: <ErrorNotice error={error} onRetry={() => setAttempt((n) => n + 1)} /> };
  return { module, fallback: <p role="status">{t('common.loading')}</p> };
}

export function FindEntry({ query }: { query: string }) {
  const { module, fallback } = useModule(() => import('./find-page.tsx'));
  return module === undefined ? <>{fallback}</> : <module.FindPage query={query} />;
}

export function ReconciliationEntry({ access, runId }: { access: Access; runId?: string }) {
  const { module, fallback } = useModule(() => import('./reconciliation-page.tsx'));
  if (module === undefined) return <>{fallback}</>;
  return runId === undefined ? <module.ReconciliationsPage access={access} /> : <module.ReconciliationRunPage id={runId} key={runId} />;
}

/** The review panel, loaded only for a batch that has rows under review. */
export function ReviewEntry(props: { batch: BatchDetail; access: Access; onChanged: () => void }) {
  const waiting = props.batch.counts.some((c) => c.status === 'NEEDS_REVIEW' && c.count > 0);
  return waiting ? <LoadedReview {...props} /> : null;
}

function LoadedReview(props: { batch: BatchDetail; access: Access; onChanged: () => void }) {
  const { module, fallback } = useModule(() => import('./review-panel.tsx'));
  return module === undefined ? <>{fallback}</> : <module.ReviewPanel {...props} />;
}

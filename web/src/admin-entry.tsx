import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Access } from './api.ts';
import { useI18n } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';

/**
 * A page only admins use (Events, Keys), loaded when it is opened: a chunk of its own, words
 * included, so the script every clerk loads stays within its budget
 * (test/web/clerk-journey.test.ts). Other roles get a sentence, not the page.
 */
export function AdminPageEntry({
  access,
  load,
  adminsOnly,
}: {
  access: Access;
  /** The page's module, imported: `() => import('./x-page.tsx').then((m) => m.XPage)`. */
  load: () => Promise<FunctionComponent>;
  adminsOnly: string;
}) {
  const { t } = useI18n();
  const [Page, setPage] = useState<FunctionComponent | undefined>();
  const [error, setError] = useState<unknown>();
  const [attempt, setAttempt] = useState(0);
  const admin = access.role === 'admin';

  useEffect(() => {
    if (!admin) return;
    let current = true;
    setError(undefined);
    load().then(
      (page) => current && setPage(() => page),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
    // `load` is a new arrow each render; what it loads does not change.
  }, [admin, attempt]);

  if (!admin) return <p class="notice">{adminsOnly}</p>;
  if (error !== undefined) return <ErrorNotice error={error} onRetry={() => setAttempt((n) => n + 1)} />;
  return Page === undefined ? <p role="status">{t('common.loading')}</p> : <Page />;
}

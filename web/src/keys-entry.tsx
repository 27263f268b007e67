import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Access } from './api.ts';
import { useI18n } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';
// In the page's one style sheet: a chunk with a style sheet of its own would bring Vite's preload helper into the main script.
import './keys-page.css';

/**
 * The API keys page, loaded when it is opened (a chunk of its own, words included), as the
 * Events page is (events-entry.tsx): only admins use it. Other roles get a sentence.
 */
export function KeysEntry({ access }: { access: Access }) {
  const { t } = useI18n();
  const [Page, setPage] = useState<FunctionComponent | undefined>();
  const [error, setError] = useState<unknown>();
  const [attempt, setAttempt] = useState(0);
  const admin = access.role === 'admin';

  useEffect(() => {
    if (!admin) return;
    let current = true;
    setError(undefined);
    import('./keys-page.tsx').then(
      (module) => current && setPage(() => module.KeysPage),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [admin, attempt]);

  if (!admin) return <p class="notice">{t('nav.keysAdminsOnly')}</p>;
  if (error !== undefined) return <ErrorNotice error={error} onRetry={() => setAttempt((n) => n + 1)} />;
  return Page === undefined ? <p role="status">{t('common.loading')}</p> : <Page />;
}

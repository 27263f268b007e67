import type { Access } from './api.ts';
import { AdminPageEntry } from './admin-entry.tsx';
import { useI18n } from './i18n.ts';
// In the page's one style sheet: a chunk with a style sheet of its own would bring Vite's preload helper into the main script.
import './keys-page.css';

/** The API keys page, for admins, loaded when opened (admin-entry.tsx). */
export function KeysEntry({ access }: { access: Access }) {
  const { t } = useI18n();
  return (
    <AdminPageEntry access={access} load={() => import('./keys-page.tsx').then((m) => m.KeysPage)} adminsOnly={t('nav.keysAdminsOnly')} />
  );
}

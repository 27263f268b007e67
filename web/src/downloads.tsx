import { useState } from 'preact/hooks';
import { download } from './api.ts';
import { useI18n } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';
import type { BatchDetail } from './queries.ts';

/** The gateway's download routes (src/server/batch-downloads.ts), fetched with the caller's key. */
export function Downloads({ batch, only }: { batch: BatchDetail; only?: 'problems' }) {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  const files = [
    ...(only === undefined ? [{ label: t('batch.results'), path: `/batches/${batch.id}/results.csv` }] : []),
    ...(batch.invalidCount + batch.warningCount > 0 || batch.status === 'REJECTED' ? [{ label: t('batch.problemsCsv'), path: `/batches/${batch.id}/problems.csv` }] : []),
  ];
  if (files.length === 0) return null;
  return (
    <section class="downloads" aria-labelledby={`downloads-${batch.id}`}>
      <h2 id={`downloads-${batch.id}`}>{t('batch.downloads')}</h2>
      <div class="button-row">
        {files.map((file) => (
          <button
            type="button"
            key={file.path}
            onClick={() => {
              setError(undefined);
              download(file.path).catch(setError);
            }}
          >
            {file.label}
          </button>
        ))}
      </div>
      {error === undefined ? null : <ErrorNotice error={error} />}
    </section>
  );
}

import { useState } from 'preact/hooks';
import { download } from './api.ts';
import { useI18n } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';
import type { BatchDetail } from './queries.ts';

/** The gateway's download routes (src/server/batch-downloads.ts), fetched with the caller's key. */
export function Downloads({ batch, only }: { batch: BatchDetail; only?: 'problems' }) {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  // Plain CSV, the dialect a Russian-locale Excel opens (';', decimal comma) and a workbook.
  const kinds = [
    ...(only === undefined ? [['results', t('batch.results')] as const] : []),
    ...(batch.invalidCount + batch.warningCount > 0 || batch.status === 'REJECTED' ? [['problems', t('batch.problems')] as const] : []),
  ];
  const formats = [
    { label: 'CSV', suffix: '.csv' },
    { label: t('batch.excelCsv'), suffix: '.csv?format=excel' },
    { label: 'XLSX', suffix: '.xlsx' },
  ];
  if (kinds.length === 0) return null;
  return (
    <section class="downloads" aria-labelledby={`downloads-${batch.id}`}>
      <h2 id={`downloads-${batch.id}`}>{t('batch.downloads')}</h2>
      {kinds.map(([kind, label]) => (
        <div class="download-row" role="group" aria-labelledby={`download-${batch.id}-${kind}`} key={kind}>
          <span id={`download-${batch.id}-${kind}`} class="download-label">
            {label}
          </span>
          {formats.map((format) => (
            <button
              type="button"
              key={format.suffix}
              onClick={() => {
                setError(undefined);
                download(`/batches/${batch.id}/${kind}${format.suffix}`).catch(setError);
              }}
            >
              {format.label}
            </button>
          ))}
        </div>
      ))}
      {error === undefined ? null : <ErrorNotice error={error} />}
    </section>
  );
}

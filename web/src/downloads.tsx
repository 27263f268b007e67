import { useState } from 'preact/hooks';
import { download } from './api.ts';
import { useI18n } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';
import type { BatchDetail } from './queries.ts';

/** The gateway's download routes (src/server/batch-downloads.ts), fetched with the caller's key. */
export function Downloads({ batch, only }: { batch: BatchDetail; only?: 'problems' }) {
  const { t } = useI18n();
  const kinds = [
    // Results are the rows' payments: there are none before the batch is approved.
    ...(only === undefined && batch.approvedAt !== null ? [['results', t('batch.results')] as const] : []),
    ...(batch.invalidCount + batch.warningCount > 0 || batch.status === 'REJECTED' ? [['problems', t('batch.problems')] as const] : []),
  ];
  if (kinds.length === 0) return null;
  return (
    <DownloadSection
      id={`downloads-${batch.id}`}
      rows={kinds.map(([kind, label]) => ({ id: `download-${batch.id}-${kind}`, label, path: `/batches/${batch.id}/${kind}` }))}
    />
  );
}

/**
 * A "Downloads" section: each report in plain CSV, the dialect a Russian-locale Excel opens
 * (';', decimal comma) and a workbook. `path` is the report's route without its extension.
 */
export function DownloadSection({ id, rows }: { id: string; rows: Array<{ id: string; label: string; path: string }> }) {
  const { t } = useI18n();
  const [error, setError] = useState<unknown>();
  const formats = [
    { label: 'CSV', suffix: '.csv' },
    { label: t('batch.excelCsv'), suffix: '.csv?format=excel' },
    { label: 'XLSX', suffix: '.xlsx' },
  ];
  return (
    <section class="downloads" aria-labelledby={id}>
      <h2 id={id}>{t('batch.downloads')}</h2>
      {rows.map((row) => (
        <div class="download-row" role="group" aria-labelledby={row.id} key={row.id}>
          <span id={row.id} class="download-label">
            {row.label}
          </span>
          {formats.map((format) => (
            <button
              type="button"
              key={format.suffix}
              onClick={() => {
                setError(undefined);
                download(`${row.path}${format.suffix}`).catch(setError);
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

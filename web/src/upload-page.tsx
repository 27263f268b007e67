import { useRef, useState } from 'preact/hooks';
import { gql, refusal, upload, type Access } from './api.ts';
import { BatchActions } from './batch-actions.tsx';
import { navigate } from './route.ts';
import { useI18n } from './i18n.ts';
import { BatchStatusBadge, ErrorNotice, Money, PageTitle } from './parts.tsx';
import { BATCH_PROBLEMS, IMPORT_BATCH, type BatchDetail, type Problem } from './queries.ts';
import { REPORT_LIMIT, ValidationReport } from './report.tsx';
import { Downloads } from './downloads.tsx';
import { download } from './api.ts';
import { PROVIDER_NAMES } from './queries.ts';
import { providerName } from './recipient-words.ts';

type ImportReply = {
  importBatch: { __typename: 'ImportBatchSuccess'; batch: BatchDetail } | { __typename: 'BatchError'; code: string; message: string };
};

export function UploadPage({ access }: { access: Access }) {
  const { t } = useI18n();
  const [dragging, setDragging] = useState(false);
  const [sending, setSending] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<{ batch: BatchDetail; problems: Problem[] } | undefined>();
  const input = useRef<HTMLInputElement>(null);
  // The file last sent: a duplicate upload may be sent again on purpose, as a repeat.
  const [sent, setSent] = useState<File | undefined>();

  if (!access.may.upload) {
    return (
      <>
        <PageTitle>{t('upload.title')}</PageTitle>
        <p class="notice">{t('upload.forbidden')}</p>
      </>
    );
  }

  async function send(file: File, force = false) {
    setSending(file.name);
    setSent(file);
    setError(undefined);
    setResult(undefined);
    try {
      const reply = await upload<ImportReply>(IMPORT_BATCH, file, force ? { force: true } : {});
      if (reply.importBatch.__typename === 'BatchError') throw refusal(reply.importBatch);
      const batch = reply.importBatch.batch;
      const problems = await gql<{ batch: { problems: Problem[] } }>(BATCH_PROBLEMS, { id: batch.id, limit: REPORT_LIMIT });
      setResult({ batch, problems: problems.batch.problems });
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(undefined);
      if (input.current !== null) input.current.value = '';
    }
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer?.files[0];
    if (file !== undefined) void send(file);
  };

  return (
    <>
      <PageTitle>{t('upload.title')}</PageTitle>
      <p class="lead">{t('upload.intro')}</p>
      <div
        class={`dropzone${dragging ? ' dragging' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p class="dropzone-title">{t('upload.drop')}</p>
        <p>{t('upload.or')}</p>
        <label class="button primary" for="payroll-file">
          {t('upload.choose')}
        </label>
        <input
          id="payroll-file"
          ref={input}
          class="visually-hidden-input"
          type="file"
          accept=".csv,.txt,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          disabled={sending !== undefined}
          onChange={(event) => {
            const file = (event.currentTarget as HTMLInputElement).files?.[0];
            if (file !== undefined) void send(file);
          }}
        />
      </div>
      <Templates />
      <div aria-live="polite" class="status-line">
        {sending === undefined ? '' : t('upload.uploading', { name: sending })}
      </div>
      {error === undefined ? null : <ErrorNotice error={error} />}
      {result === undefined ? null : (
        <div class="upload-result">
          <div class="batch-head">
            <h2>
              <a href={`#/batches/${result.batch.id}`}>{result.batch.fileName ?? result.batch.name}</a>
            </h2>
            <BatchStatusBadge batch={result.batch} />
            <span>
              <Money value={result.batch.payableAmount} />
            </span>
          </div>
          <BatchActions
            batch={result.batch}
            access={access}
            onChanged={(batch, action) => {
              if (action === 'approve' || action === 'approveValid') navigate(`/batches/${batch.id}`);
              else setResult({ ...result, batch });
            }}
          />
          {/* The repeat the duplicate's message speaks of: imported again, every row already paid or being paid held. */}
          {sent !== undefined && result.problems.some((problem) => problem.code === 'file.duplicate') ? (
            <p class="notice">
              {t('upload.repeatHint')}{' '}
              <button type="button" disabled={sending !== undefined} onClick={() => void send(sent, true)}>
                {t('upload.repeat')}
              </button>
            </p>
          ) : null}
          <ValidationReport batch={result.batch} problems={result.problems} />
          {result.problems.length > 0 ? <Downloads batch={result.batch} only="problems" /> : null}
        </div>
      )}
    </>
  );
}

/** GET /templates/{provider}.csv: the header and one example row a clerk can fill in. */
function Templates() {
  const i18n = useI18n();
  const { t } = i18n;
  const [error, setError] = useState<unknown>();
  return (
    <details class="templates">
      <summary>{t('upload.templates')}</summary>
      <p class="muted">{t('upload.templatesHint')}</p>
      <ul>
        {Object.values(PROVIDER_NAMES).map((code) => (
          <li key={code}>
            <span>{providerName(code, i18n)}</span>
            <button
              type="button"
              class="link"
              aria-label={`${providerName(code, i18n)} CSV`}
              onClick={() => download(`/templates/${code}.csv`).catch(setError)}
            >
              CSV
            </button>
            <button
              type="button"
              class="link"
              aria-label={`${providerName(code, i18n)} XLSX`}
              onClick={() => download(`/templates/${code}.xlsx`).catch(setError)}
            >
              XLSX
            </button>
          </li>
        ))}
      </ul>
      {error === undefined ? null : <ErrorNotice error={error} />}
    </details>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { gql, type Access } from './api.ts';
import { formatDateTime, useI18n } from './i18n.ts';
import { ErrorNotice, PageTitle, Pager, StatusFilter, serverText } from './parts.tsx';
import {
  RECONCILIATION_RUNS,
  RECONCILIATION_STATUSES,
  START_RECONCILIATION,
  type PageInfo,
  type ReconciliationRun,
  type StartReconciliationResult,
} from './queries.ts';
import { RunStatus, period } from './reconciliation-parts.tsx';
import { navigate } from './route.ts';

/* Reconciliation runs: the list, and the form that starts one; a run's own page is reconciliation-run-page.tsx. */

/** ReconciliationPeriodField values and the inputs they name on this page. */
const periodInputs = { FROM: 'from', TO: 'to', TIME_ZONE: 'timeZone' } as const;

const RUNS_PAGE = 20;

/** Yesterday in the browser's own day: the gateway's zone may differ, the form says so. */
function yesterday(): string {
  const date = new Date(Date.now() - 24 * 60 * 60 * 1000);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

export function ReconciliationsPage({ access }: { access: Access }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [reply, setReply] = useState<{ runs: ReconciliationRun[]; pageInfo: PageInfo } | undefined>();
  const [error, setError] = useState<unknown>();
  const [reload, setReload] = useState(0);
  const after = cursors[cursors.length - 1] ?? null;

  useEffect(() => {
    let current = true;
    setError(undefined);
    gql<{ reconciliationRuns: { edges: Array<{ node: ReconciliationRun }>; pageInfo: PageInfo } }>(RECONCILIATION_RUNS, {
      status: status === '' ? null : status,
      first: RUNS_PAGE,
      after,
    }).then(
      (data) =>
        current && setReply({ runs: data.reconciliationRuns.edges.map((edge) => edge.node), pageInfo: data.reconciliationRuns.pageInfo }),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [status, after, reload]);

  return (
    <>
      <PageTitle>{t('recon.title')}</PageTitle>
      <p class="lead">{t('recon.intro')}</p>
      {access.may.reconcile ? <StartForm /> : null}
      <h2>{t('recon.runs')}</h2>
      <div class="toolbar">
        <StatusFilter
          label={t('batches.filter')}
          value={status}
          statuses={RECONCILIATION_STATUSES}
          name={(value) => t(`recon.status.${value}` as 'recon.status.RUNNING')}
          onChange={(value) => {
            setStatus(value);
            setCursors([null]);
          }}
        />
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          {t('batches.refresh')}
        </button>
      </div>
      {error !== undefined ? <ErrorNotice error={error} onRetry={() => setReload((n) => n + 1)} /> : null}
      {reply === undefined && error === undefined ? <p role="status">{t('common.loading')}</p> : null}
      {reply !== undefined && reply.runs.length === 0 ? <p class="empty">{t('recon.empty')}</p> : null}
      {reply !== undefined && reply.runs.length > 0 ? (
        <div class="table-wrap">
          <table class="runs">
            <caption class="visually-hidden">{t('recon.runs')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('recon.period')}</th>
                <th scope="col">{t('batches.status')}</th>
                <th scope="col">{t('recon.trigger')}</th>
                <th scope="col" class="num">
                  {t('recon.open')}
                </th>
                <th scope="col" class="num">
                  {t('recon.repaired')}
                </th>
                <th scope="col" class="num">
                  {t('recon.matched')}
                </th>
                <th scope="col">{t('recon.started')}</th>
              </tr>
            </thead>
            <tbody>
              {reply.runs.map((run) => (
                <tr key={run.id}>
                  <th scope="row">
                    <a href={`#/reconciliation/${run.id}`}>{period(run, i18n)}</a>
                    <div class="muted mono">
                      {run.id} · {run.timeZone}
                    </div>
                  </th>
                  <td>
                    <RunStatus run={run} />
                  </td>
                  <td>{t(`recon.trigger.${run.trigger.toLowerCase()}` as 'recon.trigger.cli')}</td>
                  <td class="num">{run.status === 'COMPLETED' ? run.openCount : '—'}</td>
                  <td class="num">{run.status === 'COMPLETED' ? run.repairedCount : '—'}</td>
                  <td class="num">{run.status === 'COMPLETED' ? run.matchedCount : '—'}</td>
                  <td>{formatDateTime(run.startedAt, i18n)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager label={t('recon.runs')} cursors={cursors} pageInfo={reply?.pageInfo} onChange={setCursors} />
    </>
  );
}

function StartForm() {
  const i18n = useI18n();
  const { t } = i18n;
  const [from, setFrom] = useState(yesterday);
  const [to, setTo] = useState(yesterday);
  const [refusal, setRefusal] = useState<{ field: string; message: string } | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function start() {
    setBusy(true);
    setRefusal(undefined);
    setError(undefined);
    try {
      const data = await gql<{ startReconciliation: StartReconciliationResult }>(START_RECONCILIATION, { from, to });
      const result = data.startReconciliation;
      if (result.__typename === 'StartReconciliationSuccess') navigate(`/reconciliation/${result.run.id}`);
      else setRefusal({ field: periodInputs[result.field], message: result.message });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (field: string) =>
    refusal?.field === field ? (
      <p id={`recon-${field}-error`} class="field-error" role="alert">
        {serverText(refusal.message, i18n)}
      </p>
    ) : null;
  const described = (field: string) =>
    refusal?.field === field ? { 'aria-invalid': true, 'aria-describedby': `recon-${field}-error` } : {};

  return (
    <form
      class="recon-start"
      aria-labelledby="recon-start-title"
      onSubmit={(event) => {
        event.preventDefault();
        void start();
      }}
    >
      <h2 id="recon-start-title">{t('recon.start')}</h2>
      <p class="muted">{t('recon.startHint')}</p>
      <div class="recon-fields">
        <div>
          <label for="recon-from">{t('recon.from')}</label>
          <input
            id="recon-from"
            type="date"
            value={from}
            required
            {...described('from')}
            onInput={(event) => setFrom((event.currentTarget as HTMLInputElement).value)}
          />
          {fieldError('from')}
        </div>
        <div>
          <label for="recon-to">{t('recon.to')}</label>
          <input
            id="recon-to"
            type="date"
            value={to}
            required
            {...described('to')}
            onInput={(event) => setTo((event.currentTarget as HTMLInputElement).value)}
          />
          {fieldError('to')}
        </div>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('recon.starting') : t('recon.startButton')}
        </button>
      </div>
      {refusal !== undefined && refusal.field !== 'from' && refusal.field !== 'to' ? (
        <ErrorNotice error={new Error(refusal.message)} />
      ) : null}
      {error === undefined ? null : <ErrorNotice error={error} />}
    </form>
  );
}

// The run page is its own module; the page's lazy entry (lazy-pages.tsx) loads both from here, as one chunk.
export { ReconciliationRunPage } from './reconciliation-run-page.tsx';

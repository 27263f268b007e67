import { useEffect, useState } from 'preact/hooks';
import { usePolled } from './poll.ts';
import { gql, type Access } from './api.ts';
import { DownloadSection } from './downloads.tsx';
import { formatDateTime, useI18n, type Translator } from './i18n.ts';
import { ErrorNotice, Money, PageTitle, Pager, StatusFilter, serverText } from './parts.tsx';
import {
  DISCREPANCY_CODES,
  RECONCILIATION_RUN,
  RECONCILIATION_RUNS,
  RECONCILIATION_STATUSES,
  RUN_DISCREPANCIES,
  START_RECONCILIATION,
  type Discrepancy,
  type PageInfo,
  type ReconciliationRun,
  type ReconciliationSide,
  type StartReconciliationResult,
} from './queries.ts';
import { navigate } from './route.ts';

/** ReconciliationPeriodField values and the inputs they name on this page. */
const periodInputs = { FROM: 'from', TO: 'to', TIME_ZONE: 'timeZone' } as const;

const RUNS_PAGE = 20;
const GROUP_PAGE = 20;
/** A RUNNING run is read again this often until it ends. */
const POLL_MS = 1_000;

const runTone: Record<string, string> = { RUNNING: 'info', COMPLETED: 'good', FAILED: 'bad' };

function RunStatus({ run }: { run: Pick<ReconciliationRun, 'status'> }) {
  const { t } = useI18n();
  return <span class={`badge badge-${runTone[run.status] ?? 'plain'}`}>{t(`recon.status.${run.status}` as 'recon.status.RUNNING')}</span>;
}

/** A run's days ("2026-11-27", days of its time zone) as the page's language writes a day. */
function period(run: Pick<ReconciliationRun, 'from' | 'to'>, i18n: Translator): string {
  const day = (value: string) => {
    const at = new Date(`${value}T00:00:00Z`);
    // Formatted in UTC, where the string's midnight is: the day itself, not a moment in the reader's zone.
    return Number.isNaN(at.getTime()) ? value : new Intl.DateTimeFormat(i18n.tag, { dateStyle: 'medium', timeZone: 'UTC' }).format(at);
  };
  return run.from === run.to ? day(run.from) : `${day(run.from)} – ${day(run.to)}`;
}

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

export function ReconciliationRunPage({ id }: { id: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [run, setRun] = useState<ReconciliationRun | null | undefined>();
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);

  usePolled(
    () => gql<{ reconciliationRun: ReconciliationRun | null }>(RECONCILIATION_RUN, { id }),
    (data) => {
      setError(undefined);
      setRun(data.reconciliationRun);
      // Followed until it ends; the discrepancies are shown once it has.
      return data.reconciliationRun?.status === 'RUNNING';
    },
    setError,
    POLL_MS,
    [id, generation],
  );

  if (error !== undefined && run === undefined) return <ErrorNotice error={error} onRetry={() => setGeneration((n) => n + 1)} />;
  if (run === undefined) return <p role="status">{t('common.loading')}</p>;
  if (run === null) {
    return (
      <>
        <PageTitle>{t('recon.notFound', { id })}</PageTitle>
        <a href="#/reconciliation">{t('recon.back')}</a>
      </>
    );
  }
  return (
    <>
      <a href="#/reconciliation">{t('recon.back')}</a>
      <PageTitle>{t('recon.runTitle', { period: period(run, i18n) })}</PageTitle>
      <div class="batch-head">
        <RunStatus run={run} />
        <span class="muted mono">{run.id}</span>
      </div>
      <dl class="facts">
        <div>
          <dt>{t('recon.timeZone')}</dt>
          <dd>{run.timeZone}</dd>
        </div>
        <div>
          <dt>{t('recon.trigger')}</dt>
          <dd>
            {t(`recon.trigger.${run.trigger.toLowerCase()}` as 'recon.trigger.cli')}
            {run.requestedBy === null ? '' : ` · ${run.requestedBy}`}
          </dd>
        </div>
        <div>
          <dt>{t('recon.started')}</dt>
          <dd>{formatDateTime(run.startedAt, i18n)}</dd>
        </div>
        <div>
          <dt>{t('recon.finished')}</dt>
          <dd>{formatDateTime(run.finishedAt, i18n)}</dd>
        </div>
        <div>
          <dt>{t('recon.requests')}</dt>
          <dd>{run.upstreamRequests}</dd>
        </div>
      </dl>
      {run.status === 'RUNNING' ? (
        <section class="progress-panel" aria-live="polite">
          <h2>{t('recon.progress')}</h2>
          <p class="progress-text">
            {t('recon.phase', {
              phase: t(`recon.phase.${run.phase.toLowerCase()}` as 'recon.phase.reading'),
              read: run.daysRead,
              total: run.daysToRead,
            })}
          </p>
        </section>
      ) : null}
      {run.status === 'FAILED' ? (
        <div class="notice notice-bad" role="alert">
          <p>{t('recon.failed', { error: run.error ?? '—' })}</p>
        </div>
      ) : null}
      {run.status === 'COMPLETED' ? <RunResult run={run} /> : null}
    </>
  );
}

function RunResult({ run }: { run: ReconciliationRun }) {
  const { t } = useI18n();
  return (
    <>
      <Sides run={run} />
      <p class={run.openCount === 0 ? 'notice notice-good' : 'notice'} role="status">
        {run.discrepancyCount === 0
          ? t('recon.allMatch', { matched: run.matchedCount })
          : t('recon.summary', {
              matched: run.matchedCount,
              found: run.discrepancyCount,
              open: run.openCount,
              repaired: run.repairedCount,
            })}
      </p>
      {run.countsByCode.map(({ code, count }) => (
        <DiscrepancyGroup runId={run.id} code={code} count={count} key={code} />
      ))}
      {run.discrepancyCount > 0 ? (
        <DownloadSection
          id={`recon-downloads-${run.id}`}
          rows={[{ id: `recon-download-${run.id}`, label: t('recon.discrepancies'), path: `/reconciliations/${run.id}/discrepancies` }]}
        />
      ) : null}
    </>
  );
}

/** Both sides' totals for the period side by side; a figure that differs is marked. */
function Sides({ run }: { run: ReconciliationRun }) {
  const { t } = useI18n();
  const rows: Array<{ label: string; of: (side: ReconciliationSide) => string; money: boolean }> = [
    { label: t('recon.payments'), of: (side) => String(side.count), money: false },
    { label: t('recon.amount'), of: (side) => side.amount.value, money: true },
    { label: t('recon.commission'), of: (side) => side.commission.value, money: true },
    { label: t('recon.paidCount'), of: (side) => String(side.paidCount), money: false },
    { label: t('recon.paidAmount'), of: (side) => side.paidAmount.value, money: true },
  ];
  return (
    <div class="table-wrap sides">
      <table>
        <caption>{t('recon.sides')}</caption>
        <thead>
          <tr>
            <th scope="col">
              <span class="visually-hidden">{t('recon.figure')}</span>
            </th>
            <th scope="col" class="num">
              {t('recon.upstream')}
            </th>
            <th scope="col" class="num">
              {t('recon.gateway')}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const upstream = row.of(run.upstream);
            const gateway = row.of(run.gateway);
            const differs = upstream !== gateway;
            return (
              <tr key={row.label} class={differs ? 'differs' : undefined}>
                <th scope="row">
                  {row.label}
                  {differs ? <span class="badge badge-warn differs-mark">{t('recon.differs')}</span> : null}
                </th>
                <td class="num">{row.money ? <Money value={{ value: upstream }} /> : upstream}</td>
                <td class="num">{row.money ? <Money value={{ value: gateway }} /> : gateway}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function DiscrepancyGroup({ runId, code, count }: { runId: string; code: string; count: number }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [reply, setReply] = useState<{ rows: Discrepancy[]; pageInfo: PageInfo } | undefined>();
  const [error, setError] = useState<unknown>();
  const after = cursors[cursors.length - 1] ?? null;
  const headingId = `group-${code}`;
  /** One side's value as a person reads it: a status by its name on the page, an amount formatted; others (a recipient) as they are. */
  const sideValue = (value: string) =>
    /^-?\d+\.\d{2}$/.test(value) ? <Money value={{ value }} /> : /^[A-Z][A-Z_]*$/.test(value) ? i18n.status(value) : value;

  useEffect(() => {
    let current = true;
    gql<{ reconciliationRun: { discrepancies: { edges: Array<{ node: Discrepancy }>; pageInfo: PageInfo } } | null }>(RUN_DISCREPANCIES, {
      id: runId,
      code,
      first: GROUP_PAGE,
      after,
    }).then(
      (data) =>
        current &&
        data.reconciliationRun !== null &&
        setReply({
          rows: data.reconciliationRun.discrepancies.edges.map((edge) => edge.node),
          pageInfo: data.reconciliationRun.discrepancies.pageInfo,
        }),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [runId, code, after]);

  const known = DISCREPANCY_CODES.includes(code);
  return (
    <section class="recon-group" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {known ? t(`recon.code.${code}` as 'recon.code.NOT_FINAL') : code} <span class="muted">({count})</span>
      </h2>
      <p class="muted">
        <code>{code}</code> · {known ? t(`recon.codeHelp.${code}` as 'recon.codeHelp.NOT_FINAL') : ''}
      </p>
      {error !== undefined ? <ErrorNotice error={error} /> : null}
      {reply === undefined && error === undefined ? <p role="status">{t('common.loading')}</p> : null}
      {reply !== undefined ? (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">{known ? t(`recon.code.${code}` as 'recon.code.NOT_FINAL') : code}</caption>
            <thead>
              <tr>
                <th scope="col">{t('recon.payment')}</th>
                <th scope="col">{t('recon.batchRow')}</th>
                <th scope="col" class="num">
                  {t('recon.amount')}
                </th>
                <th scope="col">{t('recon.gateway')}</th>
                <th scope="col">{t('recon.upstream')}</th>
                {code === 'STATUS_DIFFERS' ? <th scope="col">{t('recon.finalSide')}</th> : null}
                <th scope="col">{t('recon.resolution')}</th>
              </tr>
            </thead>
            <tbody>
              {reply.rows.map((row) => (
                <tr key={row.id}>
                  <th scope="row" class="mono">
                    <a href={`#/find?q=${encodeURIComponent(row.paymentId)}`}>{row.paymentId}</a>
                  </th>
                  <td>
                    {row.batchId === null ? (
                      '—'
                    ) : (
                      <a href={`#/batches/${row.batchId}`}>{t('recon.row', { batch: row.batchId, row: row.batchRow ?? '?' })}</a>
                    )}
                  </td>
                  <td class="num">{row.amount === null ? '—' : <Money value={row.amount} />}</td>
                  <td class="recon-value">
                    {row.gatewayValue === null ? <span class="muted">{t('recon.none')}</span> : sideValue(row.gatewayValue)}
                  </td>
                  <td class="recon-value">
                    {row.upstreamValue === null ? <span class="muted">{t('recon.none')}</span> : sideValue(row.upstreamValue)}
                  </td>
                  {code === 'STATUS_DIFFERS' ? (
                    <td>{row.finalSide === null ? '—' : t(`recon.final.${row.finalSide}` as 'recon.final.BOTH')}</td>
                  ) : null}
                  <td>
                    <span class={`badge ${row.resolution === 'REPAIRED' ? 'badge-good' : 'badge-warn'}`}>
                      {t(`recon.resolution.${row.resolution}` as 'recon.resolution.OPEN')}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager
        label={known ? t(`recon.code.${code}` as 'recon.code.NOT_FINAL') : code}
        cursors={cursors}
        pageInfo={reply?.pageInfo}
        onChange={setCursors}
      />
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { usePolled } from './poll.ts';
import { gql } from './api.ts';
import { DownloadSection } from './downloads.tsx';
import { formatDateTime, useI18n } from './i18n.ts';
import { useNames } from './names.ts';
import { ErrorNotice, Money, PageTitle, Pager } from './parts.tsx';
import {
  DISCREPANCY_CODES,
  RECONCILIATION_RUN,
  RUN_DISCREPANCIES,
  type Discrepancy,
  type PageInfo,
  type ReconciliationRun,
  type ReconciliationSide,
} from './queries.ts';
import { RunStatus, period } from './reconciliation-parts.tsx';

/* One reconciliation run: its result, both sides' totals and its discrepancies by code. */

const GROUP_PAGE = 20;
/** A RUNNING run is read again this often until it ends. */
const POLL_MS = 1_000;

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

  const name = useNames([run?.requestedBy]);

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
            {run.requestedBy === null ? '' : ` · ${name(run.requestedBy)}`}
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

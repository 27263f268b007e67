import { useI18n } from './i18n.ts';
import { serverText } from './parts.tsx';
import type { BatchDetail, Problem } from './queries.ts';

export const REPORT_LIMIT = 500;

/** The validation report: one section per problem code, errors first, lines in file order. */
export function ValidationReport({ batch, problems }: { batch: BatchDetail; problems: readonly Problem[] }) {
  const i18n = useI18n();
  const { t } = i18n;
  const groups = new Map<string, Problem[]>();
  for (const problem of problems) groups.set(problem.code, [...(groups.get(problem.code) ?? []), problem]);
  const ordered = [...groups.entries()].sort(([, a], [, b]) => severityRank(a[0]!) - severityRank(b[0]!));
  return (
    <section class="report" aria-labelledby="report-title">
      <h2 id="report-title">{t('report.title')}</h2>
      <p class="report-summary">
        {t('report.summary', { rows: batch.rowCount, valid: batch.validCount, invalid: batch.invalidCount, warnings: batch.warningCount })}
      </p>
      {problems.length === 0 ? <p class="notice notice-good">{t('report.ok')}</p> : null}
      {ordered.map(([code, list]) => (
        // The code is for tools and the downloads (data-code), not for the reader: the title says it (issue 38).
        <section
          class={`problem-group problem-${list[0]!.severity === 'ERROR' ? 'error' : 'warning'}`}
          key={code}
          data-code={code}
          aria-labelledby={`group-${code}`}
        >
          <h3 id={`group-${code}`}>
            {i18n.problem(code)}{' '}
            <span class="count">
              {list[0]!.severity === 'ERROR' ? t('report.errors', { count: list.length }) : t('report.warnings', { count: list.length })}
            </span>
          </h3>
          <table>
            <caption class="visually-hidden">{i18n.problem(code)}</caption>
            <thead>
              <tr>
                <th scope="col">{t('report.line')}</th>
                <th scope="col">{t('report.column')}</th>
                <th scope="col">{t('report.message')}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((problem, index) => (
                <tr key={index}>
                  <td class="num">{problem.line ?? t('report.file')}</td>
                  <td>{problem.column ?? '—'}</td>
                  <td>
                    {serverText(problem.message, i18n)}
                    <EarlierBatch problem={problem} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
      {problems.length >= REPORT_LIMIT ? <p class="notice">{t('report.more', { shown: REPORT_LIMIT })}</p> : null}
    </section>
  );
}

/** The batch a file was imported as before (file.duplicate names it): a link, so the clerk opens it rather than copies its id. */
function EarlierBatch({ problem }: { problem: Problem }) {
  const { t } = useI18n();
  const id = problem.code === 'file.duplicate' ? /\bbatch (b[0-9a-f]{11})\b/.exec(problem.message)?.[1] : undefined;
  if (id === undefined) return null;
  return (
    <>
      {' '}
      <a href={`#/batches/${id}`}>{t('report.openBatch', { id })}</a>
    </>
  );
}

function severityRank(problem: Problem): number {
  return problem.severity === 'ERROR' ? 0 : 1;
}

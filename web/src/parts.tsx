import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from './api.ts';
import { useI18n, type Translator } from './i18n.ts';
import { localAmount } from '../../src/money/money-text.ts';
import type { Progress } from './progress.ts';
import type { BatchWait, Money as MoneyValue, PageInfo } from './queries.ts';
import type { BatchAction } from './gql/graphql.ts';
import { nameOf } from './names.ts';

export function Money({ value }: { value: MoneyValue | { value: string; currency?: string } }) {
  const { tag } = useI18n();
  return <span class="money">{localAmount(value.value, value.currency ?? 'RUB', tag)}</span>;
}

const tone: Record<string, string> = {
  COMPLETED: 'good',
  VALIDATED: 'info',
  RUNNING: 'info',
  IN_PROGRESS: 'info',
  EXECUTING: 'info',
  CREATING: 'info',
  READY: 'info',
  COMPLETED_WITH_FAILURES: 'warn',
  NEEDS_REVIEW: 'warn',
  UNKNOWN: 'warn',
  REJECTED: 'bad',
  FAILED: 'bad',
  INVALID: 'bad',
  DUPLICATE: 'warn',
  EXPIRED: 'bad',
};

/** Why a batch sends nothing now, in the page's words: the batch page's notice and the batch list's sign. */
export function waitText(waiting: Pick<BatchWait, 'reason' | 'by' | 'shortfall'>, i18n: Translator): string {
  // Local single-user mode records its one person as "local" (audit) or "anonymous" (the key): said in words, as "Uploaded by" is.
  const local = waiting.by === 'local' || waiting.by === 'anonymous';
  return i18n.t(local && waiting.reason === 'PERSON' ? 'wait.PERSON_LOCAL' : `wait.${waiting.reason}`, {
    by: nameOf(waiting.by),
    shortfall: waiting.shortfall === null ? '—' : localAmount(waiting.shortfall.value, waiting.shortfall.currency, i18n.tag),
  });
}

/**
 * A batch's status as a person reads it: a REJECTED file whose valid rows can still be
 * approved "has row errors"; only one with nothing to pay is rejected.
 */
export function batchStatusName(batch: BatchStatusFacts, i18n: Translator): string {
  return i18n.status(rowErrorsOnly(batch) ? 'ROW_ERRORS' : batch.status);
}

type BatchStatusFacts = { status: string; actions: readonly BatchAction[] };

/** Refused for row errors only, with a valid row: the gateway offers to approve its valid rows. */
export const rowErrorsOnly = (batch: { actions: readonly BatchAction[] }) => batch.actions.includes('APPROVE_VALID_ROWS');

export function BatchStatusBadge({ batch }: { batch: BatchStatusFacts }) {
  const i18n = useI18n();
  return (
    <span class={`badge badge-${rowErrorsOnly(batch) ? 'warn' : (tone[batch.status] ?? 'plain')}`}>{batchStatusName(batch, i18n)}</span>
  );
}

/** Status names the gateway's own sentences may carry (batch, row and payment states). */
const STATUS_WORD =
  /\b(COMPLETED_WITH_FAILURES|VALIDATING|VALIDATED|REJECTED|RUNNING|PAUSED|COMPLETED|CANCELLED|NEEDS_REVIEW|IN_PROGRESS|EXPIRED|FAILED|PENDING|DUPLICATE|INVALID)\b/g;
/** An amount as the gateway writes it in a sentence: "46,950.60 RUB" (src/money/money-text.ts amountInWords), or "46950.60 RUB" as older messages do. */
const AMOUNT = /(?<![\d,.])(-?(?:\d{1,3}(?:,\d{3})+|\d+)\.\d{2}) ([A-Z]{3})\b/g;
/** A range of amounts with the currency once, at its end: "10.00–1000000.00 RUB" (a provider's limits, "10.00–1,000,000.00 RUB" as check-payment.ts writes them). */
const RANGE = /(?<![\d,.])((?:\d{1,3}(?:,\d{3})+|\d+)\.\d{2})–((?:\d{1,3}(?:,\d{3})+|\d+)\.\d{2}) ([A-Z]{3})\b/g;
/** A time as the gateway writes it: ISO 8601. */
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})\b/g;
/** A time as the gateway writes it in a sentence (readable-text.ts utcDateTime): "27 Nov 2026, 04:32 UTC". */
const UTC_TIME = /\b(\d{1,2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}), (\d{2}):(\d{2}) UTC\b/g;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** A bare ISO day ("2026-11-27", a UTC day), as messages stored before readable-text.ts and SQL's to_char() write it. */
const ISO_DAY = /(?<![\w.-])(\d{4})-(\d{2})-(\d{2})(?![\w.-]*\w)/g;

/**
 * The gateway's own sentences (refusals, problem and row messages) with what the page can
 * say better put in the page's terms: amounts formatted for the language, state names by
 * their names on the page, times as the page shows them. The words themselves stay the gateway's.
 */
export function serverText(text: string, i18n: Translator): string {
  const money = (value: string, currency: string) => localAmount(value.replace(/,/g, ''), currency, i18n.tag);
  return (
    text
      .replace(RANGE, (_whole, from: string, to: string, currency: string) => `${money(from, currency)}–${money(to, currency)}`)
      .replace(AMOUNT, (_whole, value: string, currency: string) => money(value, currency))
      .replace(ISO_TIME, (time) => new Intl.DateTimeFormat(i18n.tag, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(time)))
      // A moment said in UTC is said in the reader's zone, as every other time on the page (issue 38).
      .replace(UTC_TIME, (_whole, date: string, month: string, year: string, hours: string, minutes: string) =>
        new Intl.DateTimeFormat(i18n.tag, { dateStyle: 'medium', timeStyle: 'short' }).format(
          new Date(Date.UTC(Number(year), MONTHS.indexOf(month), Number(date), Number(hours), Number(minutes))),
        ),
      )
      .replace(ISO_DAY, (day, year: string, month: string, date: string) => {
        const at = new Date(Date.UTC(Number(year), Number(month) - 1, Number(date)));
        // The day itself, whatever the reader's time zone: not a moment to shift.
        return Number.isNaN(at.getTime()) ? day : new Intl.DateTimeFormat(i18n.tag, { dateStyle: 'medium', timeZone: 'UTC' }).format(at);
      })
      .replace(STATUS_WORD, (status) => `“${i18n.status(status)}”`)
      .replace(API_CHOICE, (_whole, choice: keyof typeof CONTROLS) => `use “${i18n.t(CONTROLS[choice])}”`)
  );
}

/**
 * The approval's arguments as the page offers them (issue 29): a refusal says "approve with
 * ignoreBalance to start anyway", the CLI names --ignore-balance (cli/batch/pay-commands.ts),
 * the page its own button, quoted as the status names above are.
 */
const CONTROLS = { ignoreBalance: 'batch.startAnyway', validRowsOnly: 'batch.approveValid' } as const;
const API_CHOICE = /(?:approve )?with (ignoreBalance|validRowsOnly)(?: to (?:start anyway|pay only its valid rows))?/g;

/** `label` names the status where the page knows more than the status says (a row of a batch not yet approved). */
export function StatusBadge({ status, label }: { status: string | null; label?: string }) {
  const i18n = useI18n();
  return <span class={`badge badge-${tone[status ?? ''] ?? 'plain'}`}>{label ?? i18n.status(status)}</span>;
}

/** Finished rows as a bar: paid in green, failed in red, the rest (cancelled) in grey. */
/** A status filter: "All" and one option per status, named in the page's language. */
export function StatusFilter({
  label,
  value,
  statuses,
  onChange,
  name,
}: {
  label: string;
  value: string;
  statuses: readonly string[];
  onChange: (value: string) => void;
  /** How a status is named; the batch and payment statuses' names by default. */
  name?: (status: string) => string;
}) {
  const i18n = useI18n();
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(event) => onChange((event.currentTarget as HTMLSelectElement).value)}>
        <option value="">{i18n.t('common.all')}</option>
        {statuses.map((status) => (
          <option value={status} key={status}>
            {(name ?? i18n.status)(status)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function ProgressBar({ progress, label }: { progress: Progress; label: string }) {
  const share = (count: number) => (progress.total === 0 ? 0 : (count * 100) / progress.total);
  const paid = share(progress.paid.count);
  const failed = share(progress.failed.count);
  const other = Math.max(0, share(progress.done) - paid - failed);
  return (
    <div
      class="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={progress.percent}
      aria-valuetext={`${progress.percent}%`}
    >
      <div class="progress-paid" style={{ width: `${paid}%` }} />
      <div class="progress-failed" style={{ width: `${failed}%` }} />
      <div class="progress-other" style={{ width: `${other}%` }} />
    </div>
  );
}

export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const message = serverText(error instanceof Error ? error.message : String(error), i18n);
  // An answer of the gateway (a GraphQL error or a refusal with its code) is shown in its words.
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    // The code is for a support tool or a test (data-code), not for the reader: the words say what happened.
    <div class="notice notice-bad" role="alert" data-code={code}>
      <p>{code === undefined ? t('common.error', { message }) : t('common.refused', { message })}</p>
      {onRetry === undefined ? null : (
        <button type="button" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}

/** A page heading that takes focus when the page opens, so keyboard and screen reader users land on it. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/**
 * Previous and next over cursor pages: `cursors` is the path taken (null for the first page),
 * so going back needs no backward paging. Shown only when there is more than one page.
 */
export function Pager({
  label,
  cursors,
  pageInfo,
  onChange,
}: {
  label: string;
  cursors: Array<string | null>;
  pageInfo: PageInfo | undefined;
  onChange: (cursors: Array<string | null>) => void;
}) {
  const { t } = useI18n();
  if (cursors.length <= 1 && pageInfo?.hasNextPage !== true) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={cursors.length <= 1} onClick={() => onChange(cursors.slice(0, -1))}>
        {t('common.previous')}
      </button>
      <span>{t('common.page', { page: cursors.length })}</span>
      <button
        type="button"
        disabled={pageInfo?.hasNextPage !== true}
        onClick={() => pageInfo?.endCursor != null && onChange([...cursors, pageInfo.endCursor])}
      >
        {t('common.next')}
      </button>
    </nav>
  );
}

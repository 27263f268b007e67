import { useEffect, useState } from 'preact/hooks';
import { gql } from './api.ts';
import { formatDateTime, useI18n, type Translator } from './i18n.ts';
import { localAmount } from '../../src/money/money-text.ts';
import { UPCOMING_PAYDAYS, type BatchSummary } from './queries.ts';

/** "Friday 28 Nov, 09:00" in the reader's language and zone: the day a payroll pays. */
export function formatPayDay(value: string, i18n: Translator): string {
  return new Intl.DateTimeFormat(i18n.tag, { weekday: 'long', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }).format(
    new Date(value),
  );
}

/** The clerk's zone, named in the label of the time they pick ("Europe/Moscow"). */
const zone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A datetime-local value ("2026-11-28T09:00") is the clerk's local time: as an instant with its offset, for payAt. */
export function payAtOf(local: string): string | null {
  if (local === '') return null;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/** A date-time input in the clerk's zone, labelled with it. */
export function PayAtInput({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const { t } = useI18n();
  return (
    <label class="pay-at">
      {t('batch.payAtLabel', { zone: zone() })}{' '}
      <input type="datetime-local" name="payAt" value={value} onInput={(event) => onChange((event.target as HTMLInputElement).value)} />
    </label>
  );
}

/** The approval's choice: pay now, or on a date and time (the batch then waits SCHEDULED). */
export function PayWhen({
  later,
  onLater,
  value,
  onChange,
}: {
  later: boolean;
  onLater: (later: boolean) => void;
  value: string;
  onChange: (value: string) => void;
}) {
  const { t } = useI18n();
  return (
    <fieldset class="pay-when">
      <legend class="visually-hidden">{t('batch.payWhen')}</legend>
      <label class="check">
        <input type="radio" name="payWhen" checked={!later} onChange={() => onLater(false)} /> {t('batch.payNow')}
      </label>
      <label class="check">
        <input type="radio" name="payWhen" checked={later} onChange={() => onLater(true)} /> {t('batch.payLater')}
      </label>
      {later ? <PayAtInput value={value} onChange={onChange} /> : null}
    </fieldset>
  );
}

/** On the batch page of a scheduled batch: when it pays, and what the forecast says. */
export function ScheduledNotice({ batch }: { batch: BatchSummary }) {
  const i18n = useI18n();
  const { t } = i18n;
  if (batch.status !== 'SCHEDULED' || batch.payAt === null) return null;
  const forecast = batch.forecast;
  return (
    <div class="notice scheduled" role="note">
      <p>
        <strong>{t('batch.scheduledFor', { when: formatPayDay(batch.payAt, i18n) })}</strong>
      </p>
      <p>{forecastText(batch, i18n)}</p>
      {forecast?.shortfall == null ? null : (
        <p class="forecast-short">
          {t('batch.forecastShort', {
            amount: localAmount(forecast.shortfall.value, forecast.shortfall.currency, i18n.tag),
            when: formatPayDay(batch.payAt, i18n),
          })}
        </p>
      )}
    </div>
  );
}

/** Not read yet: when it will be (SCHEDULE_FORECAST_LEAD_HOURS before payAt), or, that time gone, before it pays. */
function forecastPending(forecast: BatchSummary['forecast'], i18n: Translator): string {
  const next = forecast?.nextReadAt ?? null;
  return next !== null && Date.parse(next) > Date.now()
    ? i18n.t('batch.forecastLater', { when: formatPayDay(next, i18n) })
    : i18n.t('batch.forecastSoon');
}

function forecastText(batch: BatchSummary, i18n: Translator): string {
  const forecast = batch.forecast;
  if (forecast === null || forecast.readAt === null) return forecastPending(forecast, i18n);
  if (forecast.shortfall === null) return i18n.t('batch.forecastCovered', { when: formatDateTime(forecast.readAt, i18n) });
  return i18n.t('batch.forecastRead', { when: formatDateTime(forecast.readAt, i18n) });
}

/** The list's upcoming paydays: scheduled batches, soonest first, with their totals and forecast. */
export function UpcomingPaydays({ refreshKey }: { refreshKey: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [batches, setBatches] = useState<BatchSummary[]>([]);
  useEffect(() => {
    let current = true;
    gql<{ upcomingPaydays: BatchSummary[] }>(UPCOMING_PAYDAYS, {}).then(
      (reply) => current && setBatches(reply.upcomingPaydays),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [refreshKey]);
  if (batches.length === 0) return null;
  return (
    <section class="upcoming" aria-labelledby="upcoming-title">
      <h2 id="upcoming-title">{t('batches.upcoming')}</h2>
      <ul>
        {batches.map((batch) => (
          <li key={batch.id}>
            <a href={`#/batches/${batch.id}`}>{formatPayDay(batch.payAt!, i18n)}</a> · {batch.fileName ?? batch.name} ·{' '}
            {localAmount(batch.payableAmount.value, batch.payableAmount.currency, i18n.tag)} ·{' '}
            {batch.forecast?.shortfall == null
              ? batch.forecast?.readAt == null
                ? forecastPending(batch.forecast ?? null, i18n)
                : t('batches.forecastCovered')
              : t('batches.forecastShort', {
                  amount: localAmount(batch.forecast.shortfall.value, batch.forecast.shortfall.currency, i18n.tag),
                })}
          </li>
        ))}
      </ul>
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { formatDateTime, formatDuration, useI18n } from './i18n.ts';
import { useNames } from './names.ts';
import { waitText } from './parts.tsx';
import type { BatchWait } from './queries.ts';

/** How often the notice's times are worked out again: a countdown in seconds. */
const TICK_MS = 1_000;

/** The time now, kept current while a time is shown against it. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/**
 * What a batch waits for, with its times in the page's locale: since when, and when the
 * gateway looks again by itself, counted down and "any moment now" once due (the check is
 * late, not gone: the next batchProgress event brings the new time).
 */
export function WaitNotice({ waiting }: { waiting: BatchWait }) {
  const i18n = useI18n();
  const { t } = i18n;
  const next = waiting.nextCheckAt === null ? null : new Date(waiting.nextCheckAt).getTime();
  const now = useNow(next !== null);
  useNames([waiting.by]);
  return (
    <div class="notice notice-warn" role="status">
      <p>
        <strong>{waitText(waiting, i18n)}</strong>
        {waiting.since === null ? null : ` · ${t('wait.since', { at: formatDateTime(waiting.since, i18n) })}`}
      </p>
      <p>{t('wait.for', { what: waiting.waitingFor })}</p>
      {next === null ? null : (
        <p>
          {next - now > 0
            ? t('wait.nextCheck', { at: formatDateTime(waiting.nextCheckAt, i18n), in: formatDuration((next - now) / 1000, i18n) })
            : t('wait.nextCheckDue')}
        </p>
      )}
    </div>
  );
}

import { formatDateTime, useI18n, type Translator } from './i18n.ts';
import { formatNumber } from './money.ts';
import { nameOf as personName } from './names.ts';
import { serverText } from './parts.tsx';
import type { EventRefusal, EventSubscription } from './events-queries.ts';
import { useEventsText, type EventsKey, type EventsText } from './events-text.ts';
import { useSecretCopy } from './secret-copy.ts';

/** The list and an open log are read again this often: deliveries change them by themselves. */
export const POLL_MS = 2_000;

export type SubscriptionState = 'ok' | 'behind' | 'failing' | 'off';

/** Off wins over failing (an off subscription sends nothing, so it fails nothing), failing over a backlog. */
export function stateOf(s: EventSubscription): SubscriptionState {
  if (!s.enabled) return 'off';
  if (s.failingSince !== null) return 'failing';
  return s.backlog > 0 ? 'behind' : 'ok';
}

export const stateTone: Record<SubscriptionState, string> = { ok: 'good', behind: 'info', failing: 'bad', off: 'warn' };

/** A subscription as a person names it: what the admin said it is for, else its address. */
export const nameOf = (s: Pick<EventSubscription, 'description' | 'url'>) => (s.description.trim() === '' ? s.url : s.description);

/** Why it is off in the page's words, from the gateway's offReason (the deliverer gave up, or who turned it off). */
export function offReason(s: EventSubscription, te: EventsText): string {
  if (s.offReason === 'FAILING') return te('events.off.failing');
  if (s.offReason === 'PERSON' && s.offBy !== null) return te('events.off.by', { who: personName(s.offBy) });
  return s.disabledReason ?? '—';
}

/** The subscription's state in a sentence, times in the reader's zone. */
export function stateWords(s: EventSubscription, i18n: Translator, te: EventsText): string {
  const time = (value: string | null) => formatDateTime(value, i18n);
  switch (stateOf(s)) {
    case 'off':
      return te('events.state.off', { time: time(s.disabledAt), why: offReason(s, te) });
    case 'failing':
      return te('events.state.failing', { since: time(s.failingSince), next: time(s.nextAttemptAt) });
    case 'behind':
      return te('events.state.behind', { count: s.backlog, time: time(s.oldestUndeliveredAt) });
    default:
      return te('events.state.upToDate');
  }
}

/** An attempt's outcome in words, with the receiver's HTTP status when one came. */
export function outcomeWords(outcome: string, statusCode: number | null, te: EventsText): string {
  const key = `events.outcome.${outcome}` as EventsKey;
  const words = OUTCOMES.includes(outcome) ? te(key) : outcome;
  return statusCode === null ? words : te('events.status', { outcome: words, code: statusCode });
}

const OUTCOMES = ['delivered', 'failed', 'timeout', 'redirect', 'refused-target', 'unreachable'];

export function formatMs(ms: number, i18n: Translator, te: EventsText): string {
  return ms < 1000
    ? te('events.ms', { ms: formatNumber(ms, i18n.tag) })
    : te('events.seconds', { s: formatNumber(ms / 1000, i18n.tag, 1) });
}

/** The reader's time zone, named beside a date-time they pick. */
export const readerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** An EventSubscriptionError in the page's words, the gateway's own sentence after them. */
export function EventRefusalNotice({ refusal }: { refusal: EventRefusal }) {
  const i18n = useI18n();
  const te = useEventsText();
  const key = `events.error.${refusal.code}` as EventsKey;
  const known = ERROR_CODES.includes(refusal.code);
  return (
    <div class="notice notice-bad" role="alert" data-code={refusal.code}>
      {known ? <p>{te(key)}</p> : null}
      <p>
        {known
          ? te('events.gatewaySaid', { message: serverText(refusal.message, i18n) })
          : i18n.t('common.refused', { message: serverText(refusal.message, i18n) })}
      </p>
    </div>
  );
}

const ERROR_CODES = [
  'EVENT_SUBSCRIPTION_NOT_FOUND',
  'EVENT_ENDPOINT_REFUSED',
  'EVENT_TYPE_UNKNOWN',
  'EVENT_REQUEST_SIZE_INVALID',
  'EVENT_NOT_FOUND',
];

export interface ShownSecret {
  name: string;
  secret: string;
  /** After a rotation: until when the old secret still signs. */
  previousValidUntil?: string;
}

/**
 * A signing secret, shown this once (the gateway keeps it sealed and never answers it
 * again), with a copy button; the heading takes focus so a screen reader reads it first.
 */
export function SecretOnce({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  const i18n = useI18n();
  const te = useEventsText();
  const { copy, heading, value, copySecret } = useSecretCopy(shown.secret);

  return (
    <section class="notice notice-warn secret-once" aria-labelledby="secret-once-title">
      <h2 id="secret-once-title" tabIndex={-1} ref={heading}>
        {te('events.secretTitle')}
      </h2>
      <p>{te('events.secretFor', { name: shown.name })}</p>
      <div class="secret-row">
        <code class="secret" ref={value}>
          {shown.secret}
        </code>
        <button type="button" onClick={() => void copySecret()}>
          {te('events.copy')}
        </button>
        <span role="status">{copy === 'copied' ? te('events.copied') : copy === 'failed' ? te('events.copyFailed') : ''}</span>
      </div>
      <p>{te('events.secretHint')}</p>
      {shown.previousValidUntil === undefined ? null : (
        <p>{te('events.rotatedHint', { time: formatDateTime(shown.previousValidUntil, i18n) })}</p>
      )}
      <button type="button" onClick={onDone}>
        {te('events.secretDone')}
      </button>
    </section>
  );
}

import { useState } from 'preact/hooks';
import { usePolled } from './poll.ts';
import { gql } from './api.ts';
import { formatDateTime, useI18n } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';
import { EventRefusalNotice, POLL_MS, formatMs, nameOf, outcomeWords } from './events-parts.tsx';
import {
  EVENT_DELIVERIES,
  RESEND_EVENT,
  refused,
  type DeliveryAttempt,
  type EventRefusal,
  type EventResult,
  type EventSubscription,
} from './events-queries.ts';
import { typeTitle, useEventsText } from './events-text.ts';

/** How many attempts the log shows: the newest (the API pages back by an attempt id it does not expose). */
const LOG_SIZE = 50;

/** A subscription's latest delivery attempts, followed while open, with "Resend" per delivered event. */
export function DeliveryLog({ subscription }: { subscription: EventSubscription }) {
  const i18n = useI18n();
  const te = useEventsText();
  const [attempts, setAttempts] = useState<DeliveryAttempt[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [reload, setReload] = useState(0);
  const [sending, setSending] = useState<string | undefined>();
  // The resend's answer, put in words when shown, so the sentence follows the page's language.
  const [sent, setSent] = useState<{ type: string; outcome: string; statusCode: number | null } | undefined>();
  const [refusal, setRefusal] = useState<EventRefusal | undefined>();

  // No query reads one subscription: the list's, with each one's log, and this one's taken.
  usePolled(
    () => gql<{ eventSubscriptions: Array<{ id: string; deliveries: DeliveryAttempt[] }> }>(EVENT_DELIVERIES, { first: LOG_SIZE }),
    (data) => {
      setError(undefined);
      // Newest first by time: the gateway orders them by its id as text ("9" before "17"; reported to the events room).
      const listed = data.eventSubscriptions.find((s) => s.id === subscription.id)?.deliveries ?? [];
      setAttempts([...listed].sort((a, b) => Date.parse(b.at) - Date.parse(a.at)));
      return true;
    },
    setError,
    POLL_MS,
    [subscription.id, reload],
  );

  async function resend(attempt: DeliveryAttempt) {
    setSending(attempt.eventId);
    setSent(undefined);
    setRefusal(undefined);
    setError(undefined);
    try {
      const { result } = await gql<{
        result: EventResult<{ delivery: { outcome: string; statusCode: number | null; excerpt: string | null } }>;
      }>(RESEND_EVENT, {
        id: subscription.id,
        eventId: attempt.eventId,
      });
      if (refused(result)) setRefusal(result);
      else setSent({ type: attempt.eventType, outcome: result.delivery.outcome, statusCode: result.delivery.statusCode });
      setReload((n) => n + 1);
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(undefined);
    }
  }

  const title = te('events.log', { name: nameOf(subscription) });
  return (
    <section class="delivery-log" id={`log-${subscription.id}`} aria-label={title}>
      <h4>{title}</h4>
      <p role="status" class="status-line">
        {sent === undefined
          ? ''
          : te('events.resendDone', { type: typeTitle(sent.type, te), outcome: outcomeWords(sent.outcome, sent.statusCode, te) })}
      </p>
      {refusal === undefined ? null : <EventRefusalNotice refusal={refusal} />}
      {error === undefined ? null : <ErrorNotice error={error} onRetry={() => setReload((n) => n + 1)} />}
      {attempts === undefined && error === undefined ? <p role="status">{i18n.t('common.loading')}</p> : null}
      {attempts !== undefined && attempts.length === 0 ? <p class="empty">{te('events.logEmpty')}</p> : null}
      {attempts !== undefined && attempts.length > 0 ? (
        <>
          <p class="muted">{te('events.logLatest', { count: attempts.length })}</p>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">{title}</caption>
              <thead>
                <tr>
                  <th scope="col">{te('events.at')}</th>
                  <th scope="col">{te('events.event')}</th>
                  <th scope="col" class="num">
                    {te('events.sequence')}
                  </th>
                  <th scope="col">{te('events.outcome')}</th>
                  <th scope="col" class="num">
                    {te('events.duration')}
                  </th>
                  <th scope="col">{te('events.answer')}</th>
                  <th scope="col">
                    <span class="visually-hidden">{te('events.resend')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {attempts.map((a) => {
                  const delivered = a.outcome === 'delivered';
                  return (
                    <tr key={`${a.eventId}-${a.at}-${a.attempt}-${a.resend}`} data-event-id={a.eventId} data-outcome={a.outcome}>
                      <td>{formatDateTime(a.at, i18n)}</td>
                      <th scope="row">
                        <span>{typeTitle(a.eventType, te)}</span>
                        <div class="muted">
                          <code>{a.eventType}</code>
                        </div>
                      </th>
                      <td class="num">{a.sequence}</td>
                      <td>
                        <span class={`badge badge-${delivered ? 'good' : 'bad'}`}>{outcomeWords(a.outcome, a.statusCode, te)}</span>
                        <div class="muted">{a.resend ? te('events.resent') : te('events.attempt', { n: a.attempt })}</div>
                      </td>
                      <td class="num">{formatMs(a.durationMs, i18n, te)}</td>
                      <td class="excerpt">{delivered || a.excerpt === null ? '' : <code>{a.excerpt}</code>}</td>
                      <td>
                        {delivered && !a.resend ? (
                          <button
                            type="button"
                            disabled={sending !== undefined}
                            aria-label={te('events.resendLabel', { sequence: a.sequence, type: typeTitle(a.eventType, te) })}
                            onClick={() => void resend(a)}
                          >
                            {te('events.resend')}
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}

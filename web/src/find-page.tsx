import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, gql } from './api.ts';
import { formatDateTime, useI18n } from './i18n.ts';
import { navigate } from './route.ts';
import { ErrorNotice, Money, PageTitle, StatusBadge } from './parts.tsx';
import { PayeeCell } from './payee-marks.tsx';
import { PAYMENT, SEARCH_BY_REFERENCE, type Payment } from './queries.ts';
import { providerName, recipientText } from './recipient-words.ts';

const MAX_FOUND = 20;

interface Found {
  payments: Payment[];
  /** The lookup by paymentId needed the partner, which did not answer: only references were searched. */
  idNotAsked: boolean;
}

/**
 * A paymentId (read from the upstream now, merged with the gateway's record; the record
 * alone when the partner does not answer) and the payer's reference (the gateway's own
 * records, every attempt of the row), together. A reference is found without the partner:
 * the lookup by id failing for want of it does not hide what the records hold.
 */
async function findPayments(query: string): Promise<Found> {
  const byId = gql<{ payment: Payment | null }>(PAYMENT, { paymentId: query }).then(
    (reply) => ({ payments: reply.payment === null ? [] : [reply.payment], failure: undefined }),
    (error: unknown) => {
      // The upstream's "no such payment" is an answer here, not a failure.
      if (error instanceof ApiError && /not[-_ .]?found/i.test(error.message)) return { payments: [], failure: undefined };
      return { payments: [] as Payment[], failure: error };
    },
  );
  const byReference = gql<{ searchPayments: { edges: Array<{ node: Payment }> } }>(SEARCH_BY_REFERENCE, {
    reference: query,
    first: MAX_FOUND,
  }).then((reply) => reply.searchPayments.edges.map((edge) => edge.node));
  const [id, references] = [await byId, await byReference];
  if (id.failure !== undefined && references.length === 0) throw id.failure;
  const found = [...id.payments, ...references];
  return {
    payments: found.filter((payment, index) => found.findIndex((other) => other.paymentId === payment.paymentId) === index),
    idNotAsked: id.failure !== undefined,
  };
}

export function FindPage({ query }: { query: string }) {
  const { t } = useI18n();
  const [text, setText] = useState(query);
  const [found, setFound] = useState<({ query: string } & Found) | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const shownQuery = useRef(query);

  useEffect(() => {
    // Only a query that changed (back, forward, a link) replaces the text: effects run after
    // the page is shown, so resetting it on the first run would wipe what was typed meanwhile.
    if (shownQuery.current !== query) setText(query);
    shownQuery.current = query;
    if (query === '') return;
    let current = true;
    setBusy(true);
    setError(undefined);
    findPayments(query)
      .then(
        (result) => current && setFound({ query, ...result }),
        (failure: unknown) => current && setError(failure),
      )
      .finally(() => current && setBusy(false));
    return () => {
      current = false;
    };
  }, [query]);

  return (
    <>
      <PageTitle>{t('find.title')}</PageTitle>
      <form
        class="search"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          const wanted = text.trim();
          if (wanted !== '') navigate(`/find?q=${encodeURIComponent(wanted)}`);
        }}
      >
        <label for="find-query">{t('find.label')}</label>
        <div class="search-row">
          <input
            id="find-query"
            type="search"
            value={text}
            aria-describedby="find-hint"
            autoComplete="off"
            spellcheck={false}
            onInput={(event) => setText((event.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={busy}>
            {t('find.submit')}
          </button>
        </div>
        <p id="find-hint" class="muted">
          {t('find.hint')}
        </p>
      </form>
      <div aria-live="polite">
        {busy ? <p>{t('common.loading')}</p> : null}
        {!busy && found !== undefined && found.payments.length === 0 ? <p class="empty">{t('find.none', { query: found.query })}</p> : null}
      </div>
      {error === undefined ? null : <ErrorNotice error={error} />}
      {found?.idNotAsked === true ? (
        <p class="notice" role="status">
          {t('find.idNotAsked', { query: found.query })}
        </p>
      ) : null}
      {found?.payments.map((payment) => (
        <PaymentCard payment={payment} key={payment.paymentId} />
      ))}
    </>
  );
}

function PaymentCard({ payment }: { payment: Payment }) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <article class="payment" aria-labelledby={`payment-${payment.paymentId}`}>
      <h2 id={`payment-${payment.paymentId}`} class="mono">
        {payment.paymentId}
      </h2>
      {payment.freshness.liveReadErrorCode === null ? null : (
        <p class="notice" role="status">
          {t('find.recorded', { time: formatDateTime(payment.freshness.readAt, i18n) })}
        </p>
      )}
      <dl class="facts">
        <div>
          <dt>{t('find.status')}</dt>
          <dd>
            <StatusBadge status={payment.trackingStatus ?? payment.status} />
          </dd>
        </div>
        <div>
          <dt>{t('find.amount')}</dt>
          <dd>
            <Money value={payment.amount} />
          </dd>
        </div>
        <div>
          <dt>{t('find.commission')}</dt>
          <dd>{payment.commission === null ? '—' : <Money value={payment.commission} />}</dd>
        </div>
        {payment.reference === null ? null : (
          <div>
            <dt>{t('find.reference')}</dt>
            <dd>{payment.reference}</dd>
          </div>
        )}
        <div>
          <dt>{t('find.provider')}</dt>
          <dd>{providerName(payment.provider, i18n)}</dd>
        </div>
        <div>
          <dt>{t('find.recipient')}</dt>
          <dd>{recipientText(payment.provider, payment.recipient, i18n)}</dd>
        </div>
        {payment.payee === null ? null : (
          <div>
            <dt>{t('items.payee')}</dt>
            <dd class="payee">
              <PayeeCell item={payment} />
            </dd>
          </div>
        )}
        {payment.batchId === null ? null : (
          <div>
            <dt>{t('find.batch')}</dt>
            <dd>
              <a href={`#/batches/${payment.batchId}`}>{payment.batchId}</a>
              {payment.batchRow === null ? '' : ` · ${t('items.line')} ${payment.batchRow}`}
            </dd>
          </div>
        )}
        <div>
          <dt>{t('find.created')}</dt>
          <dd>{formatDateTime(payment.createdAt, i18n)}</dd>
        </div>
        {payment.errorMessage === null && payment.upstreamErrorCode === null ? null : (
          <div>
            <dt>{t('find.error')}</dt>
            <dd>{[payment.upstreamErrorCode, payment.errorMessage].filter(Boolean).join(': ')}</dd>
          </div>
        )}
      </dl>
      <h3>{t('find.history')}</h3>
      <table>
        <caption class="visually-hidden">{t('find.history')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('find.when')}</th>
            <th scope="col">{t('find.status')}</th>
            <th scope="col">{t('find.source')}</th>
            <th scope="col">{t('find.error')}</th>
          </tr>
        </thead>
        <tbody>
          {payment.history.map((change, index) => (
            <tr key={index}>
              <td>{formatDateTime(change.changedAt ?? change.recordedAt, i18n)}</td>
              <td>
                <StatusBadge status={change.status} />
              </td>
              <td>{i18n.source(change.source.toLowerCase().replace(/_/g, '-'))}</td>
              <td>{[change.errorCode, change.errorMessage].filter(Boolean).join(': ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}

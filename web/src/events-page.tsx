import { useEffect, useState } from 'preact/hooks';
import { useNames } from './names.ts';
import { usePolled } from './poll.ts';
import { gql } from './api.ts';
import { formatDateTime, useI18n } from './i18n.ts';
import { ErrorNotice, PageTitle } from './parts.tsx';
import { EventRefusalNotice, POLL_MS, SecretOnce, nameOf, offReason, stateOf, type ShownSecret } from './events-parts.tsx';
import {
  CREATE_EVENT_SUBSCRIPTION,
  EVENT_SUBSCRIPTIONS,
  EVENT_TYPES,
  refused,
  type EventRefusal,
  type EventResult,
  type EventSubscription,
  type EventType,
} from './events-queries.ts';
import { SubscriptionCard } from './events-subscription.tsx';
import { typeHelp, typeTitle, useEventsText } from './events-text.ts';

/**
 * Outbound events (issue 31; docs/api/events.md): the subscriptions and their state, a
 * notice when one is off or failing, subscribing, and per subscription its actions and
 * delivery log. Admins only: app.tsx links it for them and loads this file apart.
 */
export function EventsPage() {
  const { t } = useI18n();
  const te = useEventsText();
  const [types, setTypes] = useState<EventType[] | undefined>();
  const [subscriptions, setSubscriptions] = useState<EventSubscription[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [reload, setReload] = useState(0);
  const [secret, setSecret] = useState<ShownSecret | undefined>();

  useEffect(() => {
    let current = true;
    gql<{ eventTypes: EventType[] }>(EVENT_TYPES).then(
      (data) => current && setTypes(data.eventTypes),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, []);

  usePolled(
    () => gql<{ eventSubscriptions: EventSubscription[] }>(EVENT_SUBSCRIPTIONS),
    (data) => {
      setError(undefined);
      setSubscriptions(data.eventSubscriptions);
      return true;
    },
    setError,
    POLL_MS,
    [reload],
  );

  const changed = () => setReload((n) => n + 1);

  return (
    <>
      <PageTitle>{te('events.title')}</PageTitle>
      <p class="lead">{te('events.intro')}</p>
      {subscriptions === undefined ? null : <TroubleNotice subscriptions={subscriptions} />}
      {secret === undefined ? null : <SecretOnce shown={secret} onDone={() => setSecret(undefined)} />}
      {types === undefined ? null : (
        <SubscribeForm
          types={types}
          onCreated={(created, shown) => {
            setSubscriptions((list) => [...(list ?? []).filter((s) => s.id !== created.id), created]);
            setSecret({ name: nameOf(created), secret: shown });
            changed();
          }}
        />
      )}
      <div class="toolbar events-head">
        <h2>{te('events.subscriptions')}</h2>
        <button type="button" onClick={changed}>
          {te('events.refresh')}
        </button>
      </div>
      {error !== undefined ? <ErrorNotice error={error} onRetry={changed} /> : null}
      {subscriptions === undefined && error === undefined ? <p role="status">{t('common.loading')}</p> : null}
      {subscriptions !== undefined && subscriptions.length === 0 ? <p class="empty">{te('events.none')}</p> : null}
      {subscriptions?.map((subscription) => (
        <SubscriptionCard key={subscription.id} subscription={subscription} types={types ?? []} onChanged={changed} onSecret={setSecret} />
      ))}
    </>
  );
}

/** The notice on the page: every subscription that is off or failing, and what waits behind it. */
function TroubleNotice({ subscriptions }: { subscriptions: EventSubscription[] }) {
  const i18n = useI18n();
  const te = useEventsText();
  const troubled = subscriptions.filter((s) => stateOf(s) === 'off' || stateOf(s) === 'failing');
  useNames(troubled.map((s) => s.offBy));
  if (troubled.length === 0) return null;
  return (
    <section class="notice notice-bad events-trouble" role="alert" aria-labelledby="events-trouble-title">
      <h2 id="events-trouble-title">{te('events.troubleTitle')}</h2>
      <ul>
        {troubled.map((s) => (
          <li key={s.id}>
            {stateOf(s) === 'off'
              ? te('events.troubleOff', { name: nameOf(s), why: offReason(s, te), count: s.backlog })
              : te('events.troubleFailing', {
                  name: nameOf(s),
                  since: formatDateTime(s.failingSince, i18n),
                  next: formatDateTime(s.nextAttemptAt, i18n),
                })}
          </li>
        ))}
      </ul>
    </section>
  );
}

function SubscribeForm({ types, onCreated }: { types: EventType[]; onCreated: (subscription: EventSubscription, secret: string) => void }) {
  const te = useEventsText();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [perRequest, setPerRequest] = useState('1');
  const [picked, setPicked] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<EventRefusal | undefined>();
  const [error, setError] = useState<unknown>();

  async function subscribe() {
    setBusy(true);
    setRefusal(undefined);
    setError(undefined);
    try {
      const data = await gql<{ result: EventResult<{ created: { secret: string; subscription: EventSubscription } }> }>(
        CREATE_EVENT_SUBSCRIPTION,
        {
          input: { url: url.trim(), types: picked, description: description.trim(), eventsPerRequest: Number(perRequest) },
        },
      );
      if (refused(data.result)) return setRefusal(data.result);
      onCreated(data.result.created.subscription, data.result.created.secret);
      setUrl('');
      setDescription('');
      setPerRequest('1');
      setPicked([]);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const refusedUrl = refusal?.code === 'EVENT_ENDPOINT_REFUSED';
  return (
    <form
      class="events-new"
      aria-labelledby="events-new-title"
      onSubmit={(event) => {
        event.preventDefault();
        void subscribe();
      }}
    >
      <h2 id="events-new-title">{te('events.new')}</h2>
      <div class="events-fields">
        <div>
          <label for="events-url">{te('events.url')}</label>
          <input
            id="events-url"
            type="url"
            required
            value={url}
            placeholder="https://hr.example.com/payout-events"
            aria-describedby="events-url-hint"
            aria-invalid={refusedUrl ? true : undefined}
            onInput={(event) => setUrl((event.currentTarget as HTMLInputElement).value)}
          />
          <p id="events-url-hint" class="muted">
            {te('events.urlHint')}
          </p>
        </div>
        <div>
          <label for="events-description">{te('events.description')}</label>
          <input
            id="events-description"
            type="text"
            value={description}
            maxLength={200}
            onInput={(event) => setDescription((event.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="events-per-request">{te('events.perRequest')}</label>
          <input
            id="events-per-request"
            type="number"
            min={1}
            max={100}
            required
            value={perRequest}
            aria-describedby="events-per-request-hint"
            aria-invalid={refusal?.code === 'EVENT_REQUEST_SIZE_INVALID' ? true : undefined}
            onInput={(event) => setPerRequest((event.currentTarget as HTMLInputElement).value)}
          />
          <p id="events-per-request-hint" class="muted">
            {te('events.perRequestHint')}
          </p>
        </div>
      </div>
      <fieldset class="events-types">
        <legend>{te('events.types')}</legend>
        <p class="muted">{te('events.typesHint')}</p>
        <ul>
          {types.map((type) => (
            <li key={type.name}>
              <input
                id={`events-type-${type.name}`}
                type="checkbox"
                checked={picked.includes(type.name)}
                aria-describedby={`events-type-help-${type.name}`}
                onChange={(event) => {
                  const on = (event.currentTarget as HTMLInputElement).checked;
                  setPicked((list) => (on ? [...list, type.name] : list.filter((name) => name !== type.name)));
                }}
              />
              <label for={`events-type-${type.name}`}>{typeTitle(type.name, te)}</label>
              <span id={`events-type-help-${type.name}`} class="muted">
                <code>{type.name}</code> · {typeHelp(type, te)}
              </span>
            </li>
          ))}
        </ul>
      </fieldset>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? te('events.subscribing') : te('events.subscribe')}
      </button>
      {refusal === undefined ? null : <EventRefusalNotice refusal={refusal} />}
      {error === undefined ? null : <ErrorNotice error={error} />}
    </form>
  );
}

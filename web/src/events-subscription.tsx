import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from './api.ts';
import { formatDateTime, useI18n } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';
import { payAtOf } from './schedule-parts.tsx';
import { DeliveryLog } from './events-log.tsx';
import { useNames } from './names.ts';
import { EventRefusalNotice, nameOf, readerZone, stateOf, stateTone, stateWords, type ShownSecret } from './events-parts.tsx';
import {
  DELETE_EVENT_SUBSCRIPTION,
  REPLAY_EVENTS,
  ROTATE_EVENT_SECRET,
  UPDATE_EVENT_SUBSCRIPTION,
  refused,
  type EventRefusal,
  type EventResult,
  type EventSubscription,
  type EventType,
} from './events-queries.ts';
import { typeTitle, useEventsText } from './events-text.ts';

/** One subscription: its state in words, its facts, its actions, "Replay since" and its delivery log. */
export function SubscriptionCard({
  subscription: s,
  types,
  onChanged,
  onSecret,
}: {
  subscription: EventSubscription;
  types: EventType[];
  onChanged: () => void;
  onSecret: (shown: ShownSecret) => void;
}) {
  const i18n = useI18n();
  const te = useEventsText();
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const [logOpen, setLogOpen] = useState(false);
  const [refusal, setRefusal] = useState<EventRefusal | undefined>();
  const [error, setError] = useState<unknown>();
  // How many events a replay put ahead: kept as a number, so the sentence follows the page's language.
  const [replayed, setReplayed] = useState<number | undefined>();
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);

  const state = stateOf(s);
  const name = nameOf(s);
  // Who subscribed it, and who turned it off (offReason reads the names known so far).
  const names = useNames([s.createdBy, s.offBy]);
  const titleId = `subscription-${s.id}`;
  const everyType = s.types.length === 0 || (types.length > 0 && types.every((type) => s.types.includes(type.name)));

  /** One mutation with its typed result: a refusal is shown in words, anything else is `then`'s. */
  async function act<T>(send: () => Promise<{ result: EventResult<T> }>, then: (result: T) => void) {
    setBusy(true);
    setRefusal(undefined);
    setError(undefined);
    setReplayed(undefined);
    try {
      const { result } = await send();
      if (refused(result)) setRefusal(result);
      else then(result);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
      setAsking(false);
    }
  }

  const toggle = () =>
    act(
      () =>
        gql<{ result: EventResult<{ subscription: EventSubscription }> }>(UPDATE_EVENT_SUBSCRIPTION, {
          id: s.id,
          change: { enabled: !s.enabled },
        }),
      onChanged,
    );
  const rotate = () =>
    act(
      () => gql<{ result: EventResult<{ rotated: { secret: string; previousValidUntil: string } }> }>(ROTATE_EVENT_SECRET, { id: s.id }),
      ({ rotated }) => {
        onSecret({ name, secret: rotated.secret, previousValidUntil: rotated.previousValidUntil });
        onChanged();
      },
    );
  const remove = () => act(() => gql<{ result: EventResult<{ deleted: boolean }> }>(DELETE_EVENT_SUBSCRIPTION, { id: s.id }), onChanged);

  return (
    <section class={`subscription subscription-${state}`} aria-labelledby={titleId} data-subscription={s.id}>
      <div class="batch-head">
        <h3 id={titleId}>{name}</h3>
        <span class={`badge badge-${stateTone[state]}`}>{te(`events.badge.${state}`)}</span>
      </div>
      <p class="subscription-state">{stateWords(s, i18n, te)}</p>
      {state === 'off' && s.backlog > 0 ? <p>{te('events.state.waiting', { count: s.backlog })}</p> : null}
      <dl class="facts compact">
        <div>
          <dt>{te('events.url')}</dt>
          <dd class="mono">{s.url}</dd>
        </div>
        <div>
          <dt>{te('events.types')}</dt>
          <dd>
            {everyType
              ? te('events.allTypes')
              : te('events.someTypes', { count: s.types.length, names: s.types.map((type) => typeTitle(type, te)).join(', ') })}
          </dd>
        </div>
        {s.eventsPerRequest === 1 ? null : (
          <div>
            <dt>{te('events.perRequest')}</dt>
            <dd>{te('events.perRequestList', { count: s.eventsPerRequest })}</dd>
          </div>
        )}
        <div>
          <dt>{te('events.createdTitle')}</dt>
          <dd>{te('events.created', { time: formatDateTime(s.createdAt, i18n), who: names(s.createdBy) })}</dd>
        </div>
        {s.previousSecretValidUntil === null ? null : (
          <div>
            <dt>{te('events.secret')}</dt>
            <dd>{te('events.oldSecret', { time: formatDateTime(s.previousSecretValidUntil, i18n) })}</dd>
          </div>
        )}
      </dl>
      {asking ? (
        <div class="confirm" role="group" aria-labelledby={`confirm-${s.id}`}>
          <p id={`confirm-${s.id}`}>{te('events.confirmDelete', { url: s.url })}</p>
          <div class="button-row">
            <button type="button" class="danger" ref={confirmRef} disabled={busy} onClick={() => void remove()}>
              {te('events.delete')}
            </button>
            <button type="button" disabled={busy} onClick={() => setAsking(false)}>
              {te('events.back')}
            </button>
          </div>
        </div>
      ) : (
        <div class="button-row" role="group" aria-label={te('events.actionsOf', { name })}>
          <button type="button" disabled={busy} onClick={() => void toggle()}>
            {s.enabled ? te('events.turnOff') : te('events.turnOn')}
          </button>
          <button type="button" disabled={busy} onClick={() => void rotate()}>
            {te('events.rotate')}
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => setAsking(true)}>
            {te('events.delete')}
          </button>
          <button type="button" aria-expanded={logOpen} aria-controls={`log-${s.id}`} onClick={() => setLogOpen((open) => !open)}>
            {logOpen ? te('events.hideLog') : te('events.showLog')}
          </button>
        </div>
      )}
      <ReplayForm
        subscription={s}
        busy={busy}
        onReplay={(since) =>
          act(
            () => gql<{ result: EventResult<{ eventsAhead: number }> }>(REPLAY_EVENTS, { id: s.id, since }),
            ({ eventsAhead }) => {
              setReplayed(eventsAhead);
              onChanged();
            },
          )
        }
      />
      <p role="status" class="status-line">
        {replayed === undefined ? '' : te('events.replayDone', { count: replayed })}
      </p>
      {refusal === undefined ? null : <EventRefusalNotice refusal={refusal} />}
      {error === undefined ? null : <ErrorNotice error={error} />}
      {logOpen ? <DeliveryLog subscription={s} /> : null}
    </section>
  );
}

function ReplayForm({
  subscription,
  busy,
  onReplay,
}: {
  subscription: EventSubscription;
  busy: boolean;
  onReplay: (since: string) => void;
}) {
  const te = useEventsText();
  const [local, setLocal] = useState('');
  const [missing, setMissing] = useState(false);
  const id = `replay-${subscription.id}`;
  return (
    <form
      class="events-replay"
      aria-label={te('events.replay')}
      onSubmit={(event) => {
        event.preventDefault();
        // The picked time is the reader's own; sent as an instant with its offset.
        const since = payAtOf(local);
        setMissing(since === null);
        if (since !== null) onReplay(since);
      }}
    >
      <label for={id}>{te('events.replayLabel', { zone: readerZone() })}</label>{' '}
      <input
        id={id}
        type="datetime-local"
        step={1}
        value={local}
        aria-invalid={missing ? true : undefined}
        aria-describedby={missing ? `${id}-error` : undefined}
        onInput={(event) => setLocal((event.currentTarget as HTMLInputElement).value)}
      />{' '}
      <button type="submit" disabled={busy}>
        {te('events.replayButton')}
      </button>
      {missing ? (
        <p id={`${id}-error`} class="field-error" role="alert">
          {te('events.replayMissing')}
        </p>
      ) : null}
    </form>
  );
}

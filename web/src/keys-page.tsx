import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from './api.ts';
import {
  ApiKeysDocument as API_KEYS,
  CreateApiKeyDocument as CREATE_API_KEY,
  PeopleDocument as PEOPLE,
  RevokeApiKeyDocument as REVOKE_API_KEY,
  type PeopleQuery,
  type Role,
} from './gql/graphql.ts';
import { formatDateTime, useI18n } from './i18n.ts';
import { useNames } from './names.ts';
import { ErrorNotice, PageTitle } from './parts.tsx';
import { KeySecret, RefusalNotice, type Refusal } from './keys-parts.tsx';
import { useKeysText } from './keys-text.ts';

/**
 * API keys as records (issue 40): the list, creating one (its secret shown once), revoking one.
 * Admins only: app.tsx links it for them and loads this file apart (keys-entry.tsx).
 */

type Person = PeopleQuery['people'][number];

/** ApiKeyFields of operations.graphql, its times as the ISO strings the gateway sends. */
interface ApiKey {
  id: string;
  name: string;
  role: Role;
  hint: string;
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
  lastUsedAt: string | null;
  owner: { id: string; name: string } | null;
}

type Result<T> = {
  result: ({ __typename: 'ApiKeyError' } & Refusal) | ({ __typename: 'CreateApiKeySuccess' | 'RevokeApiKeySuccess' } & T);
};

const ROLES: Role[] = ['VIEWER', 'OPERATOR', 'APPROVER', 'ADMIN'];

export function KeysPage() {
  const { t } = useI18n();
  const tk = useKeysText();
  const [keys, setKeys] = useState<ApiKey[] | undefined>();
  const [people, setPeople] = useState<Person[]>([]);
  const [error, setError] = useState<unknown>();
  const [reload, setReload] = useState(0);
  const [secret, setSecret] = useState<{ name: string; secret: string } | undefined>();
  const [revoked, setRevoked] = useState<string | undefined>();

  useEffect(() => {
    let current = true;
    setError(undefined);
    Promise.all([gql<{ apiKeys: ApiKey[] }>(API_KEYS), gql<PeopleQuery>(PEOPLE)]).then(
      ([list, named]) => {
        if (!current) return;
        setKeys(list.apiKeys);
        setPeople(named.people.filter((p) => p.kind === 'PERSON'));
      },
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [reload]);

  const replace = (key: ApiKey) => setKeys((list) => [key, ...(list ?? []).filter((k) => k.id !== key.id)]);

  return (
    <>
      <PageTitle>{tk('keys.title')}</PageTitle>
      <p class="lead">{tk('keys.intro')}</p>
      {secret === undefined ? null : <KeySecret shown={secret} onDone={() => setSecret(undefined)} />}
      <NewKeyForm
        people={people}
        onCreated={(key, shown) => {
          setRevoked(undefined);
          replace(key);
          setSecret({ name: key.name, secret: shown });
        }}
      />
      <div class="toolbar keys-head">
        <h2>{tk('keys.list')}</h2>
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          {tk('keys.refresh')}
        </button>
      </div>
      <p role="status" class="status-line">
        {revoked === undefined ? '' : tk('keys.revokedNow', { name: revoked })}
      </p>
      {error !== undefined ? <ErrorNotice error={error} onRetry={() => setReload((n) => n + 1)} /> : null}
      {keys === undefined && error === undefined ? <p role="status">{t('common.loading')}</p> : null}
      {keys !== undefined && keys.length === 0 ? <p class="empty">{tk('keys.none')}</p> : null}
      {keys === undefined || keys.length === 0 ? null : (
        <KeysTable
          keys={keys}
          onRevoked={(key) => {
            replace(key);
            setRevoked(key.name);
          }}
        />
      )}
    </>
  );
}

/** The end of the chosen day in the reader's own time: what "expires on" means to them. */
function endOfDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + 1).toISOString();
}

function NewKeyForm({ people, onCreated }: { people: Person[]; onCreated: (key: ApiKey, secret: string) => void }) {
  const { t } = useI18n();
  const tk = useKeysText();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('OPERATOR');
  const [expires, setExpires] = useState('');
  const [owner, setOwner] = useState('');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | undefined>();
  const [error, setError] = useState<unknown>();

  async function create() {
    setBusy(true);
    setRefusal(undefined);
    setError(undefined);
    try {
      const input = { name: name.trim(), role, expiresAt: expires === '' ? null : endOfDay(expires), owner: owner === '' ? null : owner };
      const { result } = await gql<Result<{ created: { apiKey: ApiKey; secret: string } }>>(CREATE_API_KEY, { input });
      if (result.__typename === 'ApiKeyError') return setRefusal(result);
      onCreated(result.created.apiKey, result.created.secret);
      setName('');
      setExpires('');
      setOwner('');
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  // The field the refusal is about, marked and described by it.
  const bad = (field: 'name' | 'expires' | 'owner') =>
    refusal !== undefined &&
    ({ name: ['API_KEY_NAME_TAKEN', 'API_KEY_NAME_INVALID'], expires: ['API_KEY_EXPIRY_INVALID'], owner: ['API_KEY_OWNER_UNKNOWN'] }[
      field
    ].includes(refusal.code)
      ? true
      : undefined);
  const describe = (field: 'name' | 'expires' | 'owner', hint: string) => (bad(field) ? `${hint} keys-refusal` : hint);
  return (
    <form
      class="keys-new"
      aria-labelledby="keys-new-title"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h2 id="keys-new-title">{tk('keys.new')}</h2>
      <div class="keys-fields">
        <div>
          <label for="key-name">{tk('keys.name')}</label>
          <input
            id="key-name"
            type="text"
            required
            maxLength={40}
            autoComplete="off"
            value={name}
            aria-invalid={bad('name')}
            aria-describedby={describe('name', 'key-name-hint')}
            onInput={(event) => setName((event.currentTarget as HTMLInputElement).value)}
          />
          <p id="key-name-hint" class="muted">
            {tk('keys.nameHint')}
          </p>
        </div>
        <div>
          <label for="key-role">{tk('keys.role')}</label>
          <select id="key-role" value={role} onChange={(event) => setRole((event.currentTarget as HTMLSelectElement).value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`role.${r.toLowerCase() as 'admin'}`)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="key-owner">{tk('keys.owner')}</label>
          <select
            id="key-owner"
            value={owner}
            aria-invalid={bad('owner')}
            aria-describedby={describe('owner', 'key-owner-hint')}
            onChange={(event) => setOwner((event.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">{tk('keys.ownerNone')}</option>
            {people.map((p) => (
              <option key={p.id} value={p.id}>
                {p.email === null || p.email === p.name ? p.name : `${p.name} <${p.email}>`}
              </option>
            ))}
          </select>
          <p id="key-owner-hint" class="muted">
            {tk('keys.ownerHint')}
          </p>
        </div>
        <div>
          <label for="key-expires">{tk('keys.expires')}</label>
          <input
            id="key-expires"
            type="date"
            value={expires}
            aria-invalid={bad('expires')}
            aria-describedby={describe('expires', 'key-expires-hint')}
            onInput={(event) => setExpires((event.currentTarget as HTMLInputElement).value)}
          />
          <p id="key-expires-hint" class="muted">
            {tk('keys.expiresHint', { zone: Intl.DateTimeFormat().resolvedOptions().timeZone })}
          </p>
        </div>
      </div>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? tk('keys.creating') : tk('keys.create')}
      </button>
      {refusal === undefined ? null : <RefusalNotice refusal={refusal} id="keys-refusal" />}
      {error === undefined ? null : <ErrorNotice error={error} />}
    </form>
  );
}

function KeysTable({ keys, onRevoked }: { keys: ApiKey[]; onRevoked: (key: ApiKey) => void }) {
  const tk = useKeysText();
  const name = useNames(keys.flatMap((k) => [k.createdBy, k.revokedBy]));
  return (
    <div class="table-wrap">
      <table class="keys">
        <thead>
          <tr>
            <th scope="col">{tk('keys.col.name')}</th>
            <th scope="col">{tk('keys.col.role')}</th>
            <th scope="col">{tk('keys.col.owner')}</th>
            <th scope="col">{tk('keys.col.hint')}</th>
            <th scope="col">{tk('keys.col.created')}</th>
            <th scope="col">{tk('keys.col.used')}</th>
            <th scope="col">{tk('keys.col.expires')}</th>
            <th scope="col">{tk('keys.col.state')}</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <KeyRow key={key.id} apiKey={key} name={name} onRevoked={onRevoked} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyRow({ apiKey: k, name, onRevoked }: { apiKey: ApiKey; name: (id: string | null) => string; onRevoked: (key: ApiKey) => void }) {
  const i18n = useI18n();
  const tk = useKeysText();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | undefined>();
  const [error, setError] = useState<unknown>();
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  const time = (value: string | null) => formatDateTime(value, i18n);
  const expired = k.revokedAt === null && k.expiresAt !== null && new Date(k.expiresAt).getTime() <= Date.now();

  async function revoke() {
    setBusy(true);
    setRefusal(undefined);
    setError(undefined);
    try {
      const { result } = await gql<Result<{ apiKey: ApiKey }>>(REVOKE_API_KEY, { id: k.id });
      if (result.__typename === 'ApiKeyError') return setRefusal(result);
      setAsking(false);
      onRevoked(result.apiKey);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <tr class={k.revokedAt === null ? undefined : 'revoked'}>
      <th scope="row" class="mono">
        {k.name}
      </th>
      <td>{i18n.t(`role.${k.role.toLowerCase() as 'admin'}`)}</td>
      <td>{k.owner === null ? <span class="muted">{tk('keys.ownNone')}</span> : k.owner.name}</td>
      <td class="mono">…{k.hint}</td>
      <td>{tk('keys.createdBy', { time: time(k.createdAt), who: name(k.createdBy) })}</td>
      <td>{k.lastUsedAt === null ? tk('keys.never') : time(k.lastUsedAt)}</td>
      <td>{k.expiresAt === null ? tk('keys.never') : time(k.expiresAt)}</td>
      <td class="key-state">
        {k.revokedAt !== null ? (
          <>
            <span class="badge badge-bad">{tk('keys.revoked')}</span>
            <div class="muted">{tk('keys.revokedWhen', { time: time(k.revokedAt), who: name(k.revokedBy) })}</div>
          </>
        ) : expired ? (
          <span class="badge badge-warn">{tk('keys.expired')}</span>
        ) : asking ? (
          <div class="confirm" role="group" aria-labelledby={`revoke-${k.id}`}>
            <p id={`revoke-${k.id}`}>{tk('keys.confirmRevoke', { name: k.name })}</p>
            <div class="button-row">
              <button type="button" class="danger" ref={confirmRef} disabled={busy} onClick={() => void revoke()}>
                {tk('keys.revoke')}
              </button>
              <button type="button" disabled={busy} onClick={() => setAsking(false)}>
                {tk('keys.back')}
              </button>
            </div>
          </div>
        ) : (
          <>
            <span class="badge badge-good">{tk('keys.active')}</span>{' '}
            <button type="button" class="danger" aria-label={tk('keys.revokeOf', { name: k.name })} onClick={() => setAsking(true)}>
              {tk('keys.revoke')}
            </button>
          </>
        )}
        {refusal === undefined ? null : <RefusalNotice refusal={refusal} />}
        {error === undefined ? null : <ErrorNotice error={error} />}
      </td>
    </tr>
  );
}

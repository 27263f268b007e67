import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, keysRequired, probeAccess, whenUnauthorized, type Access } from './api.ts';
import { BatchPage } from './batch-page.tsx';
import { BatchesPage } from './batches-page.tsx';
import { I18n, saveLocale, savedLocale, translator, useI18n, type Locale } from './i18n.ts';
import { ErrorNotice, PageTitle } from './parts.tsx';
import { useRoute, type Route } from './route.ts';
import { UploadPage } from './upload-page.tsx';
import { FindEntry, ReconciliationEntry } from './lazy-pages.tsx';
import { EventsEntry } from './events-entry.tsx';

const KEY_STORAGE = 'payout-gateway.api-key';

type Session =
  { state: 'checking' } | { state: 'signed-out'; error?: string } | { state: 'failed'; error: unknown } | { state: 'in'; access: Access };

function storedKey(): string | undefined {
  try {
    return sessionStorage.getItem(KEY_STORAGE) ?? localStorage.getItem(KEY_STORAGE) ?? undefined;
  } catch {
    return undefined;
  }
}

function storeKey(key: string | undefined, remember: boolean): void {
  try {
    sessionStorage.removeItem(KEY_STORAGE);
    localStorage.removeItem(KEY_STORAGE);
    if (key !== undefined) (remember ? localStorage : sessionStorage).setItem(KEY_STORAGE, key);
  } catch {
    // Storage off: the key lasts as long as the page.
  }
}

export function App() {
  const [locale, setLocale] = useState<Locale>(savedLocale);
  const i18n = useMemo(() => translator(locale), [locale]);
  const [session, setSession] = useState<Session>({ state: 'checking' });
  const route = useRoute();

  // In the same commit as the translated text, so the page never reads as one language in another's lang.
  useLayoutEffect(() => {
    document.documentElement.lang = locale;
    document.title = `${i18n.t('app.title')} · payout-gateway`;
  }, [locale]);

  async function signIn(key: string | undefined, remember = false) {
    setSession({ state: 'checking' });
    try {
      const access = await probeAccess(key);
      storeKey(key, remember);
      setSession({ state: 'in', access });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        storeKey(undefined, false);
        setSession({ state: 'signed-out', ...(key === undefined ? {} : { error: 'bad' }) });
      } else {
        setSession({ state: 'failed', error });
      }
    }
  }

  useEffect(() => {
    whenUnauthorized(() => {
      storeKey(undefined, false);
      setSession({ state: 'signed-out', error: 'bad' });
    });
  }, []);

  useEffect(() => {
    // A stored key first; without one, the page says whether the gateway wants a key (asking
    // it would be a refused request the browser logs as an error on every load).
    // A gateway without keys refuses any key sent to it: one kept from a gateway that had
    // keys (the same address, another run) is left in storage and not sent.
    const key = keysRequired() ? storedKey() : undefined;
    if (key === undefined && keysRequired()) setSession({ state: 'signed-out' });
    else void signIn(key);
  }, []);

  const switchLocale = (next: Locale) => {
    setLocale(next);
    saveLocale(next);
  };

  return (
    <I18n.Provider value={i18n}>
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        {i18n.t('app.skip')}
      </a>
      <header class="top">
        <div class="brand">
          <span class="logo" aria-hidden="true" />
          <span>{i18n.t('app.title')}</span>
        </div>
        {session.state === 'in' ? <Nav route={route} access={session.access} /> : <span class="spacer" />}
        <div class="top-right">
          {session.state === 'in' ? (
            <span class="who">
              {session.access.anonymous ? i18n.t('access.local') : i18n.t('access.role', { role: i18n.t(`role.${session.access.role}`) })}
              {session.access.anonymous ? null : (
                <button
                  type="button"
                  class="link"
                  onClick={() => {
                    storeKey(undefined, false);
                    setSession({ state: 'signed-out' });
                  }}
                >
                  {i18n.t('access.signOut')}
                </button>
              )}
            </span>
          ) : null}
          <div class="lang" role="group" aria-label={i18n.t('app.language')}>
            <button type="button" lang="en" aria-pressed={locale === 'en'} onClick={() => switchLocale('en')}>
              English
            </button>
            <button type="button" lang="ru" aria-pressed={locale === 'ru'} onClick={() => switchLocale('ru')}>
              Русский
            </button>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {session.state === 'checking' ? <p role="status">{i18n.t('signin.checking')}</p> : null}
        {session.state === 'failed' ? (
          <ErrorNotice error={session.error} onRetry={() => void signIn(keysRequired() ? storedKey() : undefined)} />
        ) : null}
        {session.state === 'signed-out' ? <SignIn error={session.error} onSubmit={(key, remember) => void signIn(key, remember)} /> : null}
        {session.state === 'in' ? <Page route={route} access={session.access} /> : null}
      </main>
    </I18n.Provider>
  );
}

function Nav({ route, access }: { route: Route; access: Access }) {
  const { t } = useI18n();
  const links = [
    { href: '#/', label: t('nav.batches'), current: route.page === 'batches' || route.page === 'batch' },
    ...(access.may.upload ? [{ href: '#/upload', label: t('nav.upload'), current: route.page === 'upload' }] : []),
    { href: '#/find', label: t('nav.find'), current: route.page === 'find' },
    {
      href: '#/reconciliation',
      label: t('nav.reconciliation'),
      current: route.page === 'reconciliations' || route.page === 'reconciliation',
    },
    ...(access.role === 'admin' ? [{ href: '#/events', label: t('nav.events'), current: route.page === 'events' }] : []),
  ];
  return (
    <nav class="main-nav" aria-label={t('nav.label')}>
      {links.map((link) => (
        <a href={link.href} key={link.href} aria-current={link.current ? 'page' : undefined}>
          {link.label}
        </a>
      ))}
      <a href="/graphql">{t('nav.graphiql')}</a>
    </nav>
  );
}

function Page({ route, access }: { route: Route; access: Access }) {
  switch (route.page) {
    case 'batch':
      return <BatchPage id={route.id} access={access} key={route.id} />;
    case 'upload':
      return <UploadPage access={access} />;
    case 'find':
      return <FindEntry query={route.query} />;
    case 'reconciliations':
      return <ReconciliationEntry access={access} />;
    case 'reconciliation':
      return <ReconciliationEntry access={access} runId={route.id} key={route.id} />;
    case 'events':
      return <EventsEntry access={access} />;
    default:
      return <BatchesPage access={access} />;
  }
}

function SignIn({ error, onSubmit }: { error: string | undefined; onSubmit: (key: string, remember: boolean) => void }) {
  const { t } = useI18n();
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  return (
    <section class="signin">
      <PageTitle>{t('signin.title')}</PageTitle>
      <p>{t('signin.intro')}</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim() !== '') onSubmit(key.trim(), remember);
        }}
      >
        <label for="api-key">{t('signin.key')}</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          value={key}
          aria-invalid={error === undefined ? undefined : true}
          aria-describedby={error === undefined ? undefined : 'api-key-error'}
          onInput={(event) => setKey((event.currentTarget as HTMLInputElement).value)}
        />
        {error === undefined ? null : (
          <p id="api-key-error" class="field-error" role="alert">
            {t('signin.bad')}
          </p>
        )}
        <label class="check">
          <input type="checkbox" checked={remember} onChange={(event) => setRemember((event.currentTarget as HTMLInputElement).checked)} />
          {t('signin.remember')}
        </label>
        <button type="submit" class="primary">
          {t('signin.submit')}
        </button>
      </form>
    </section>
  );
}

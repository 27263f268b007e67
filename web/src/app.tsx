import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, forgetCaller, keysRequired, probeAccess, signInPath, signOutOfSession, whenUnauthorized, type Access } from './api.ts';
import { BatchPage } from './batch-page.tsx';
import { BatchesPage } from './batches-page.tsx';
import { I18n, saveLocale, savedLocale, translator, useI18n, type Locale } from './i18n.ts';
import { ErrorNotice } from './parts.tsx';
import { useRoute, type Route } from './route.ts';
import { UploadPage } from './upload-page.tsx';
import { FindEntry, ReconciliationEntry } from './lazy-pages.tsx';
import { EventsEntry } from './events-entry.tsx';
import { KeysEntry } from './keys-entry.tsx';
import { forgetNames } from './names.ts';
import { mayHaveSession, noteSession, SignIn, type GateReason } from './sign-in.tsx';

const KEY_STORAGE = 'payout-gateway.api-key';

type Session =
  | { state: 'checking' }
  | { state: 'signed-out'; reason?: GateReason }
  | { state: 'failed'; error: unknown }
  | { state: 'in'; access: Access };

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

  /** With a key, that key; without, the session cookie (single sign-on) or key-less local use. */
  async function signIn(key: string | undefined, remember = false) {
    setSession({ state: 'checking' });
    const via = key !== undefined ? 'key' : keysRequired() ? 'session' : 'anonymous';
    try {
      const access = await probeAccess(key, via);
      if (via === 'session') noteSession('in');
      storeKey(key, remember);
      setSession({ state: 'in', access });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        forgetCaller();
        if (via === 'session') noteSession('out');
        storeKey(undefined, false);
        setSession({ state: 'signed-out', ...(via === 'key' ? { reason: 'bad' as const } : {}) });
      } else {
        setSession({ state: 'failed', error });
      }
    }
  }

  // The gateway stopped accepting the key (revoked, expired) or the session (ended, refused).
  useEffect(() => {
    whenUnauthorized(() => {
      const wasSession = session.state === 'in' && session.access.session;
      forgetCaller();
      forgetNames();
      storeKey(undefined, false);
      if (wasSession) noteSession('out');
      setSession({ state: 'signed-out', reason: wasSession ? 'ended' : 'bad' });
    });
  }, [session]);

  /** Which way in the page tries on load: a stored key, a session that may exist, or none (the gate). */
  const firstTry = (): string | undefined | null => {
    // A gateway without keys refuses any key sent to it: one kept from a gateway that had
    // keys (the same address, another run) is left in storage and not sent.
    if (!keysRequired()) return undefined;
    const key = storedKey();
    if (key !== undefined) return key;
    // Asking with nothing to send would be a refused request the browser logs as an error on every load.
    return signInPath() !== undefined && mayHaveSession() ? undefined : null;
  };

  useEffect(() => {
    const key = firstTry();
    if (key === null) setSession({ state: 'signed-out' });
    else void signIn(key);
  }, []);

  async function signOut(access: Access) {
    forgetNames();
    if (!access.session) {
      forgetCaller();
      storeKey(undefined, false);
      setSession({ state: 'signed-out' });
      return;
    }
    setSession({ state: 'checking' });
    try {
      const next = await signOutOfSession();
      forgetCaller();
      noteSession('out');
      // On to the provider, whose session ends too; it sends the browser back to the page.
      location.assign(next);
    } catch (error) {
      setSession({ state: 'failed', error });
    }
  }

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
          {session.state === 'in' ? <Who access={session.access} onSignOut={() => void signOut(session.access)} /> : null}
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
        {session.state === 'failed' ? <ErrorNotice error={session.error} onRetry={() => void signIn(firstTry() ?? undefined)} /> : null}
        {session.state === 'signed-out' ? (
          <SignIn signIn={signInPath()} reason={session.reason} onKey={(key, remember) => void signIn(key, remember)} />
        ) : null}
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
    // Keys are records only where the gateway takes keys at all (not in key-less local use).
    ...(access.role === 'admin' && !access.anonymous ? [{ href: '#/keys', label: t('nav.keys'), current: route.page === 'keys' }] : []),
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
    case 'keys':
      return <KeysEntry access={access} />;
    default:
      return <BatchesPage access={access} />;
  }
}

/** Who is signed in, with which role, and the way out: a session ends at the provider too, a key is forgotten. */
function Who({ access, onSignOut }: { access: Access; onSignOut: () => void }) {
  const { t } = useI18n();
  if (access.anonymous) return <span class="who">{t('access.local')}</span>;
  return (
    <span class="who">
      {/* Two short lines, so the header stays one row beside an admin's longer navigation. */}
      <span class="who-text" title={access.caller}>
        <span class="visually-hidden">{t('access.signedInAs')} </span>
        <span class="who-name">{access.name}</span> <span class="who-role">{t(`role.${access.role}`)}</span>
      </span>
      <button type="button" class="link" onClick={onSignOut}>
        {t('access.signOut')}
      </button>
    </span>
  );
}

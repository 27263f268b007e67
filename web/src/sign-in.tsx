import { useState } from 'preact/hooks';
import { useI18n } from './i18n.ts';
import { PageTitle } from './parts.tsx';

/**
 * The access gate: the company's single sign-on first when the gateway has it, and a pasted
 * API key (the only way on a gateway with keys alone) as the other way in.
 */

const SESSION_HINT = 'payout-gateway.session';

/**
 * Whether a session may exist, so the page asks the gateway on load. The session cookie is
 * HttpOnly, so the page cannot see it; asking with none answers 401, which the browser logs as
 * an error. So the page asks unless it saw the session end here (a sign-out, a refusal), and
 * asks again once a sign-in starts.
 */
export function mayHaveSession(): boolean {
  try {
    return localStorage.getItem(SESSION_HINT) !== 'out';
  } catch {
    return true;
  }
}

export function noteSession(state: 'in' | 'out'): void {
  try {
    if (state === 'out') localStorage.setItem(SESSION_HINT, 'out');
    else localStorage.removeItem(SESSION_HINT);
  } catch {
    // Storage off: the page asks on every load, as it would without the hint.
  }
}

/** Why the gate shows: a key the gateway does not know, or a session that ended meanwhile. */
export type GateReason = 'bad' | 'ended';

export function SignIn({
  signIn,
  reason,
  onKey,
}: {
  /** Where the single sign-on starts (the page's meta), when the gateway has it. */
  signIn: string | undefined;
  reason: GateReason | undefined;
  onKey: (key: string, remember: boolean) => void;
}) {
  const { t } = useI18n();
  // Back to this very page (its hash route) once signed in; the gateway takes only paths of its own.
  const back = `${location.pathname}${location.search}${location.hash}`;
  return (
    <section class="signin">
      <PageTitle>{t('signin.title')}</PageTitle>
      {reason === 'ended' ? (
        <p class="notice notice-warn" role="alert">
          {t('signin.ended')}
        </p>
      ) : null}
      {signIn === undefined ? (
        <>
          <p>{t('signin.intro')}</p>
          <KeyForm bad={reason === 'bad'} onKey={onKey} primary />
        </>
      ) : (
        <>
          <p>{t('signin.companyIntro')}</p>
          <a class="button primary sso" href={`${signIn}?to=${encodeURIComponent(back)}`} onClick={() => noteSession('in')}>
            {t('signin.company')}
          </a>
          <details class="key-option" open={reason === 'bad'}>
            <summary>{t('signin.withKey')}</summary>
            <KeyForm bad={reason === 'bad'} onKey={onKey} />
          </details>
        </>
      )}
    </section>
  );
}

function KeyForm({ bad, onKey, primary = false }: { bad: boolean; onKey: (key: string, remember: boolean) => void; primary?: boolean }) {
  const { t } = useI18n();
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (key.trim() !== '') onKey(key.trim(), remember);
      }}
    >
      <label for="api-key">{t('signin.key')}</label>
      <input
        id="api-key"
        type="password"
        autoComplete="current-password"
        value={key}
        aria-invalid={bad ? true : undefined}
        aria-describedby={bad ? 'api-key-error' : undefined}
        onInput={(event) => setKey((event.currentTarget as HTMLInputElement).value)}
      />
      {bad ? (
        <p id="api-key-error" class="field-error" role="alert">
          {t('signin.bad')}
        </p>
      ) : null}
      <label class="check">
        <input type="checkbox" checked={remember} onChange={(event) => setRemember((event.currentTarget as HTMLInputElement).checked)} />
        {t('signin.remember')}
      </label>
      <button type="submit" class={primary ? 'primary' : undefined}>
        {t('signin.submit')}
      </button>
    </form>
  );
}

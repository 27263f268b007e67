import { useI18n } from './i18n.ts';
import { serverText } from './parts.tsx';
import { knownRefusal, useKeysText } from './keys-text.ts';
import { useSecretCopy } from './secret-copy.ts';

/* The API keys page's notices (keys-page.tsx): a refusal in words, and a new key's secret. */

export type Refusal = { code: string; message: string };

/** A refusal in the page's words when it knows the code, always with the gateway's own sentence, which names the bad input. */
export function RefusalNotice({ refusal, id }: { refusal: Refusal; id?: string }) {
  const i18n = useI18n();
  const tk = useKeysText();
  const message = serverText(refusal.message, i18n);
  return (
    <div id={id} class="notice notice-bad" role="alert" data-code={refusal.code}>
      {knownRefusal(refusal.code) ? (
        <>
          <p>{tk(`keys.error.${refusal.code}`)}</p>
          <p>{tk('keys.gatewaySaid', { message })}</p>
        </>
      ) : (
        <p>{i18n.t('common.refused', { message })}</p>
      )}
    </div>
  );
}

/** The secret, shown this once, with a copy button; the heading takes focus so a screen reader reads it first. */
export function KeySecret({ shown, onDone }: { shown: { name: string; secret: string }; onDone: () => void }) {
  const tk = useKeysText();
  const { copy, heading, value, copySecret } = useSecretCopy(shown.secret);

  return (
    <section class="notice notice-warn secret-once" aria-labelledby="key-secret-title" data-testid="key-secret">
      <h2 id="key-secret-title" tabIndex={-1} ref={heading}>
        {tk('keys.secretTitle', { name: shown.name })}
      </h2>
      <p>
        <strong>{tk('keys.secretHint')}</strong>
      </p>
      <div class="secret-row">
        <code class="secret" ref={value}>
          {shown.secret}
        </code>
        <button type="button" onClick={() => void copySecret()}>
          {tk('keys.copy')}
        </button>
        <span role="status">{copy === 'copied' ? tk('keys.copied') : copy === 'failed' ? tk('keys.copyFailed') : ''}</span>
      </div>
      <p>{tk('keys.secretUse')}</p>
      <button type="button" onClick={onDone}>
        {tk('keys.done')}
      </button>
    </section>
  );
}

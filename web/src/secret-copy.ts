import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A secret shown once (an API key's, an event subscription's signing secret): its heading takes
 * focus when it appears so a screen reader reads it first, and a copy button that, where the
 * clipboard is refused (an insecure origin, a policy), selects the secret for the reader to copy.
 */
export function useSecretCopy(secret: string) {
  const [copy, setCopy] = useState<'copied' | 'failed' | undefined>();
  const heading = useRef<HTMLHeadingElement>(null);
  const value = useRef<HTMLElement>(null);
  useEffect(() => {
    setCopy(undefined);
    heading.current?.focus();
  }, [secret]);

  async function copySecret() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopy('copied');
    } catch {
      const range = document.createRange();
      if (value.current !== null) range.selectNodeContents(value.current);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setCopy('failed');
    }
  }

  return { copy, heading, value, copySecret };
}

import { useEffect, useState } from 'preact/hooks';
import { gql } from './api.ts';
import { IdentitiesDocument as IDENTITIES, type IdentitiesQuery } from './gql/graphql.ts';

/**
 * Who an identity is (`user:SUB`, `key:NAME`), as the gateway names them (the `identities`
 * query): batches, approvals and subscriptions hold identities, and a person reads names. The
 * "is it you" comparisons stay on identities; only what is shown goes through here. Names are
 * kept for the page's life: a person's name rarely changes, and every page asks for the same few.
 */
const known = new Map<string, string>();
/** Asked, or refused: not asked again until the caller changes (forgetNames). */
const asked = new Set<string>();
let queued: string[] = [];
const listeners = new Set<() => void>();

/** Local use's own words ("anonymous", "local", "system") name nobody the gateway knows: not asked. */
const named = (id: string) => id.startsWith('user:') || id.startsWith('key:');

function ask(ids: readonly string[]): void {
  const fresh = ids.filter((id) => named(id) && !asked.has(id));
  if (fresh.length === 0) return;
  fresh.forEach((id) => asked.add(id));
  const first = queued.length === 0;
  queued.push(...fresh);
  // Every component that renders in this task adds its ids first: one request for the page.
  if (first) queueMicrotask(() => void flush());
}

async function flush(): Promise<void> {
  const ids = queued;
  queued = [];
  try {
    const { identities } = await gql<IdentitiesQuery>(IDENTITIES, { ids });
    for (const identity of identities) known.set(identity.id, identity.name);
  } catch {
    // The raw identities stay on the page: a name is a courtesy, never a reason to show an error.
    return;
  }
  listeners.forEach((listener) => listener());
}

/** After a sign-out: the next caller may see names this one could not (a refused lookup is asked again). */
export function forgetNames(): void {
  asked.clear();
  queued = [];
}

export type NameOf = (id: string | null | undefined) => string;

/** The name of an identity known so far, else the identity itself; "—" for none. */
export const nameOf: NameOf = (id) => (id == null ? '—' : (known.get(id) ?? id));

/**
 * Names for the identities a component shows: asks for those not known yet, and renders again
 * once they arrive. Until then (and if the lookup fails) each shows as the identity itself.
 */
export function useNames(ids: ReadonlyArray<string | null | undefined>): NameOf {
  const [, setVersion] = useState(0);
  const wanted = ids.filter((id): id is string => id != null);
  const missing = wanted.filter((id) => named(id) && !known.has(id)).join('\n');
  useEffect(() => {
    if (missing === '') return;
    const listener = () => setVersion((n) => n + 1);
    listeners.add(listener);
    ask(missing.split('\n'));
    return () => void listeners.delete(listener);
  }, [missing]);
  return nameOf;
}

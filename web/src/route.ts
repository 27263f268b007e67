import { useEffect, useState } from 'preact/hooks';

/** Hash routes (#/batches/abc): the gateway serves one page, and links work offline and in a new tab. */
export type Route =
  | { page: 'batches' }
  | { page: 'batch'; id: string }
  | { page: 'upload' }
  | { page: 'find'; query: string }
  | { page: 'reconciliations' }
  | { page: 'reconciliation'; id: string }
  | { page: 'events' }
  | { page: 'keys' };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const [pathname = '/', search = ''] = path.split('?');
  const batch = /^\/batches\/([A-Za-z0-9]{1,16})$/.exec(pathname);
  if (batch !== null) return { page: 'batch', id: batch[1]! };
  if (pathname === '/upload') return { page: 'upload' };
  const run = /^\/reconciliation\/([A-Za-z0-9]{1,16})$/.exec(pathname);
  if (run !== null) return { page: 'reconciliation', id: run[1]! };
  if (pathname === '/reconciliation') return { page: 'reconciliations' };
  if (pathname === '/events') return { page: 'events' };
  if (pathname === '/keys') return { page: 'keys' };
  if (pathname === '/find') return { page: 'find', query: new URLSearchParams(search).get('q') ?? '' };
  return { page: 'batches' };
}

export function navigate(path: string): void {
  location.hash = `#${path}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

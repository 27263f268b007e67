/**
 * The page talks to the gateway only through its public surface: GraphQL at /graphql
 * (JSON, multipart uploads, subscriptions as Server-Sent Events) and the download routes.
 */

import { MeDocument as ME, type MeQuery } from './gql/graphql.ts';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly status: number,
  ) {
    super(message);
  }
}

let apiKey: string | undefined;
/** Signed in through the company's sign-on: the browser sends the session cookie, the page holds nothing. */
let inSession = false;
let onUnauthorized: () => void = () => {};

/** Called when the gateway stops accepting the key (revoked, expired) or the session (ended, refused). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export function setApiKey(key: string | undefined): void {
  apiKey = key;
}

function refusedNow(status: number): void {
  if (status === 401 && (apiKey !== undefined || inSession)) onUnauthorized();
}

function authHeaders(): Record<string, string> {
  return apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
}

interface GraphQLBody<T> {
  data?: T | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string } }>;
}

async function readReply<T>(response: Response): Promise<T> {
  let body: GraphQLBody<T>;
  try {
    body = (await response.json()) as GraphQLBody<T>;
  } catch {
    throw new ApiError(`HTTP ${response.status}`, undefined, response.status);
  }
  const first = body.errors?.[0];
  refusedNow(response.status);
  if (first !== undefined) throw new ApiError(first.message, first.extensions?.code, response.status);
  if (body.data == null) throw new ApiError(`HTTP ${response.status}`, undefined, response.status);
  return body.data;
}

/** A typed refusal (a mutation's BatchError result), thrown like a GraphQL error so it is shown the same way. */
export function refusal(result: { code: string; message: string }): ApiError {
  return new ApiError(result.message, result.code, 200);
}

/** Whether the page was served by a gateway that wants a key (src/server/web-page.ts). */
export function keysRequired(): boolean {
  return document.querySelector('meta[name="payout-gateway-keys"]')?.getAttribute('content') === 'required';
}

/** Where the gateway's single sign-on starts, when it has one (src/server/web-page.ts). */
export function signInPath(): string | undefined {
  return document.querySelector('meta[name="payout-gateway-sign-in"]')?.getAttribute('content') ?? undefined;
}

/**
 * Ends the session here (the gateway forgets it) and answers where the browser goes next: the
 * provider's sign-out, which ends its session too and comes back to `/`. The header is one a
 * cross-site form cannot send (src/server/sign-in-routes.ts).
 */
export async function signOutOfSession(): Promise<string> {
  const response = await fetch('/auth/sign-out', { method: 'POST', headers: { 'x-graphql-yoga-csrf': '1' } });
  if (!response.ok) throw new ApiError(`HTTP ${response.status}`, undefined, response.status);
  const { location } = (await response.json()) as { location?: unknown };
  return typeof location === 'string' ? location : '/';
}

/**
 * One of the page's operations (operations.graphql): codegen's client preset keeps only its
 * hash, the key of the operation in the manifest the gateway loads
 * (web/src/gql/persisted-documents.json). The page sends that as `documentId` (GraphQL
 * over HTTP's persisted documents), so it works where only trusted documents run.
 */
export type Operation = object;

function documentIdOf(operation: Operation): string {
  const hash = (operation as { __meta__?: { hash?: unknown } }).__meta__?.hash;
  if (typeof hash !== 'string') throw new Error("Not one of the page's persisted operations (run npm run web:documents)");
  return hash;
}

export async function gql<T>(operation: Operation, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...authHeaders() },
    body: JSON.stringify({ documentId: documentIdOf(operation), variables }),
  });
  return readReply<T>(response);
}

/** A GraphQL multipart request (the CSRF header is needed: multipart is a form content type). */
export async function upload<T>(operation: Operation, file: File, variables: Record<string, unknown> = {}): Promise<T> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ documentId: documentIdOf(operation), variables: { ...variables, file: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', file, file.name);
  const response = await fetch('/graphql', { method: 'POST', headers: { 'x-graphql-yoga-csrf': '1', ...authHeaders() }, body: form });
  return readReply<T>(response);
}

/**
 * A subscription over SSE read with fetch (EventSource cannot send the Authorization
 * header). Calls `onData` per `next` event; the returned function stops it.
 */
export function subscribe<T>(
  operation: Operation,
  variables: Record<string, unknown>,
  handlers: { onData: (data: T) => void; onEnd: (error?: Error) => void },
): () => void {
  const abort = new AbortController();
  void (async () => {
    try {
      const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...authHeaders() },
        body: JSON.stringify({ documentId: documentIdOf(operation), variables }),
        signal: abort.signal,
      });
      refusedNow(response.status);
      if (!response.ok || response.body === null) throw new ApiError(`HTTP ${response.status}`, undefined, response.status);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        const events = buffer.split('\n\n');
        buffer = events.pop() ?? '';
        for (const event of events) {
          const lines = event.split('\n');
          const name = lines
            .find((line) => line.startsWith('event:'))
            ?.slice(6)
            .trim();
          const data = lines
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5))
            .join('\n');
          if (name === 'complete') {
            handlers.onEnd();
            return;
          }
          if (name !== 'next' || data === '') continue;
          const body = JSON.parse(data) as GraphQLBody<T>;
          if (body.errors?.[0] !== undefined) throw new ApiError(body.errors[0].message, body.errors[0].extensions?.code, 200);
          if (body.data != null) handlers.onData(body.data);
        }
      }
      handlers.onEnd();
    } catch (error) {
      if (!abort.signal.aborted) handlers.onEnd(error instanceof Error ? error : new Error(String(error)));
    }
  })();
  return () => abort.abort();
}

/** A download route fetched with the key, then saved under the name the gateway gives. */
export async function download(path: string): Promise<void> {
  const response = await fetch(path, { headers: authHeaders() });
  refusedNow(response.status);
  if (!response.ok) throw new ApiError((await response.text()).trim() || `HTTP ${response.status}`, undefined, response.status);
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? path.split('/').pop() ?? 'download';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export interface Access {
  /** Key-less local mode: every request is admin. */
  anonymous: boolean;
  /** Signed in through the company's sign-on (a session cookie), not with a pasted key. */
  session: boolean;
  role: 'viewer' | 'operator' | 'approver' | 'admin';
  /** The identity the gateway records for this caller (`me.identity`: `user:SUB`, `key:NAME`; "anonymous" without keys). */
  caller: string | undefined;
  /** The caller as the page names them: the person's name, or the key's. */
  name: string;
  /** Maker-checker is off (single-user): the uploader of a batch may approve it too. */
  approvesOwn: boolean;
  may: { upload: boolean; approve: boolean; cancel: boolean; retry: boolean; reconcile: boolean };
}

/**
 * Who the caller is and what they may do, in one `me`: with `key`, that key; without, the
 * session cookie if the browser holds one, or key-less local use. A 401 (ApiError) says neither
 * is accepted. What a role may do is the gateway's rule table (src/auth/roles.ts), read the same.
 */
export async function probeAccess(key: string | undefined, via: 'key' | 'session' | 'anonymous'): Promise<Access> {
  setApiKey(key);
  // Not yet: a refusal of this probe is the gate's answer, not a session that ended.
  inSession = false;
  const { me } = await gql<MeQuery>(ME);
  const role = me.role.toLowerCase() as Access['role'];
  const pay = role === 'operator' || role === 'admin';
  const approve = role === 'approver' || role === 'admin';
  inSession = via === 'session';
  return {
    anonymous: via === 'anonymous',
    session: via === 'session',
    role,
    caller: me.identity,
    name: me.name,
    approvesOwn: me.approvesOwnBatches,
    may: { upload: pay, approve, cancel: pay || approve, retry: pay, reconcile: pay || approve },
  };
}

/** The page no longer acts for anyone: a refusal after this is no session ending. */
export function forgetCaller(): void {
  setApiKey(undefined);
  inSession = false;
}

import { openAsBlob } from 'node:fs';
import { userInfo } from 'node:os';
import { basename } from 'node:path';
import { CliError, exitCodes } from '../cli-error.ts';

/**
 * The CLI's one way to act: the gateway's own API (GraphQL and its download routes), as the
 * page and every other client use it, so roles, maker-checker and the audit trail apply to
 * a command exactly as to a request (docs/decisions/0020-the-cli-is-a-client.md).
 */
export interface GatewayClient {
  /** Where the gateway answers: PAYOUT_GATEWAY_URL, the local one, or the one this process started. */
  readonly url: string;
  /** This process opened the database and serves the API itself (no gateway was answering). */
  readonly local: boolean;
  graphql<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** A GraphQL multipart request (the upload spec yoga implements) with `path` as the variable `file`. */
  upload<T>(query: string, variables: Record<string, unknown>, path: string): Promise<T>;
  /** GET a route of the gateway's (a download), with the key. */
  download(path: string): Promise<Response>;
}

/** A GraphQL error as the gateway answers it (docs/api/error-codes.md). */
export interface AnsweredError {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: { code?: string; argument?: string; [key: string]: unknown };
}

/**
 * What each `extensions.code` means for a command's exit code (docs/guide/cli.md, "Exit
 * codes"): a refusal of the command as typed is usage (2), the batch's "no" is 1, a gateway or
 * partner that could not finish is 3. A code not listed is 3: the reason is printed.
 */
const exitOfCode: Readonly<Record<string, number>> = {
  BAD_USER_INPUT: exitCodes.usage,
  BAD_REQUEST: exitCodes.usage,
  GRAPHQL_VALIDATION_FAILED: exitCodes.usage,
  NOT_FOUND: exitCodes.usage,
  UNAUTHENTICATED: exitCodes.usage,
  FORBIDDEN: exitCodes.usage,
  PAYLOAD_TOO_LARGE: exitCodes.usage,
  SECOND_PERSON_REQUIRED: exitCodes.notPayable,
  PAYOUT_ERROR: exitCodes.failed,
  DATABASE_UNAVAILABLE: exitCodes.failed,
};

/** The CLI's code for a --json error: the gateway's code, in the CLI's lower-case words where the CLI had its own. */
const cliCodeOf: Readonly<Record<string, string>> = {
  UNAUTHENTICATED: 'auth.unknown-key',
  FORBIDDEN: 'auth.forbidden',
};

/** A download route's HTTP status as the GraphQL code of the same refusal. */
const downloadCodes: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  503: 'DATABASE_UNAVAILABLE',
};

export function errorOf(error: AnsweredError): CliError {
  const code = error.extensions?.code ?? 'INTERNAL_SERVER_ERROR';
  const refused = new CliError(error.message, exitOfCode[code] ?? exitCodes.failed, cliCodeOf[code] ?? code);
  // The gateway's request id: what an operator finds its log lines by, should the person quote it.
  if (typeof error.extensions?.requestId === 'string') refused.requestId = error.extensions.requestId;
  return refused;
}

/** A mutation's typed refusal (BatchError: BATCH_SAME_PERSON, …) as the CLI's error: `batch.same-person`, exit 1 (2 for no such batch). */
export function refusal(error: { code: string; message: string }, subject: string): CliError {
  const [area = '', ...rest] = error.code.toLowerCase().split('_');
  const code = `${area}.${rest.join('-')}`;
  return new CliError(`${subject}: ${error.message}`, code === 'batch.not-found' ? exitCodes.usage : exitCodes.notPayable, code);
}

export interface ClientOptions {
  url: string;
  local: boolean;
  /** The API key (its value never printed) and where it came from; undefined: anonymous, which only a gateway without keys accepts. */
  key: { value: string; from: string } | undefined;
  /** Set when this process serves the API itself: where it looked for a gateway and found none (said in its refusals, not its own port). */
  lookedAt?: string;
}

export function gatewayClient({ url, local, key, lookedAt }: ClientOptions): GatewayClient {
  // Who refuses a key: a gateway at its address, or this command's own configuration.
  const refuser = lookedAt === undefined ? `the gateway at ${url}` : 'this configuration';
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...extra,
    // Not a browser: yoga's CSRF check asks for a header a form cannot send on a multipart POST.
    'x-graphql-yoga-csrf': 'payout-cli',
    // The audit trail tells the CLI from the page by these (audit.ts requestClientOf), as it always did.
    'x-payout-client': 'cli',
    'x-payout-user': userInfo().username,
    ...(key === undefined ? {} : { authorization: `Bearer ${key.value}` }),
  });
  const send = async (init: RequestInit, target = `${url}/graphql`): Promise<Response> => {
    try {
      return await fetch(target, init);
    } catch (error) {
      throw unreachable(url, error);
    }
  };
  const answer = async <T>(response: Response): Promise<T> => {
    const text = await response.text();
    let body: { data?: T | null; errors?: AnsweredError[] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new CliError(`the gateway at ${url} answered HTTP ${response.status} without GraphQL: ${text.slice(0, 200)}`, exitCodes.failed);
    }
    const first = body.errors?.[0];
    if (first?.extensions?.code === 'UNAUTHENTICATED') throw unauthenticated(refuser, key?.from, lookedAt);
    if (first !== undefined) throw errorOf(first);
    if (body.data == null) throw new CliError(`the gateway at ${url} answered HTTP ${response.status} with no data`, exitCodes.failed);
    return body.data;
  };
  return {
    url,
    local,
    async graphql<T>(query: string, variables: Record<string, unknown> = {}) {
      return answer<T>(
        await send({
          method: 'POST',
          headers: headers({ 'content-type': 'application/json', accept: 'application/json' }),
          body: JSON.stringify({ query, variables }),
        }),
      );
    },
    async upload<T>(query: string, variables: Record<string, unknown>, path: string) {
      const form = new FormData();
      form.set('operations', JSON.stringify({ query, variables: { ...variables, file: null } }));
      form.set('map', JSON.stringify({ 0: ['variables.file'] }));
      // Streamed from disk as it is sent: the file is never held in memory whole.
      form.set('0', await openAsBlob(path), basename(path));
      return answer<T>(await send({ method: 'POST', headers: headers({ accept: 'application/json' }), body: form }));
    },
    async download(path: string) {
      const response = await send({ headers: headers() }, `${url}${path}`);
      if (response.ok) return response;
      const text = await response.text();
      if (response.status === 401) throw unauthenticated(refuser, key?.from, lookedAt);
      // A download route answers its refusals in plain text; its status says which kind.
      let error: AnsweredError = {
        message: text.trim() || `HTTP ${response.status}`,
        extensions: { code: downloadCodes[response.status] ?? 'INTERNAL_SERVER_ERROR' },
      };
      try {
        error = (JSON.parse(text) as { errors?: AnsweredError[] }).errors?.[0] ?? error;
      } catch {
        // Not JSON: the status says it.
      }
      throw errorOf(error);
    },
  };
}

/**
 * The gateway wants a key it knows: which one was sent (where it came from, never the key), or
 * how to give one. When this command served the API itself, that is said in the user's terms
 * (no gateway answered; this configuration's GATEWAY_API_KEYS), not as the port it made up.
 */
function unauthenticated(refuser: string, from: string | undefined, lookedAt: string | undefined): CliError {
  const why =
    lookedAt === undefined
      ? ''
      : ` (no gateway answers at ${lookedAt}, so this command served the API itself, with the keys of GATEWAY_API_KEYS)`;
  return from === undefined
    ? new CliError(
        `${refuser} has API keys (GATEWAY_API_KEYS) and answers only a key it knows, reads included${why}: give one with --key-file FILE (or PAYOUT_CLI_KEY_FILE, or PAYOUT_CLI_KEY)`,
        exitCodes.usage,
        'auth.no-key',
      )
    : new CliError(
        // A key made by `payout keys create` stops working when revoked or expired: said, so a key that worked yesterday is not a puzzle.
        `the key in ${from} is not one of ${lookedAt === undefined ? `the keys ${refuser} knows` : 'GATEWAY_API_KEYS'}${why}, ` +
          'nor a live key of payout keys create (revoked and expired keys are refused)',
        exitCodes.usage,
        'auth.unknown-key',
      );
}

/** The gateway did not answer at all (refused, reset, no such host): exit 3 with where, never the key. */
export function unreachable(url: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new CliError(`no gateway answers at ${url} (${reason})`, exitCodes.failed, 'gateway.unreachable');
}

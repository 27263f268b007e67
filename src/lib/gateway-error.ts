/**
 * The one root of this service's errors (docs/decisions/0030-one-error-root.md), as
 * stripe-node's StripeError is the root of its own
 * (https://github.com/stripe/stripe-node/blob/master/src/Error.ts): every refusal or failure
 * that leaves its module is a GatewayError with a stable machine `code` (its words may
 * change, its code does not), a `kind` that says whose move it is, and the request id when
 * one is known. What a
 * kind becomes at each edge (an HTTP status, a GraphQL code, a CLI exit code) is read from
 * `errorKinds`, so a new error class chooses a kind instead of teaching every edge its name.
 *
 * A kernel: it imports no domain, so every room may extend it.
 *
 * Plain `Error` subclasses that stay (each is private to its module and never leaves it, so
 * no edge ever meets it): NotReady in server/http-server.ts (a readiness check's own words,
 * caught by the check that threw it), UploadRefusal in server/multipart-upload.ts (a refusal
 * written out by the same handler before yoga sees the request; it carries its own HTTP
 * status and GraphQL code), RunStoppedError in reconciliation/reconciliation-service.ts (a
 * run stopped by shutdown, turned into the run's failure text in the same file).
 * test/lib/gateway-error.test.ts fails on any other.
 */

/** Whose move it is, by the cause of the error rather than the class that carries it. */
export const errorKindNames = ['input', 'not-found', 'state', 'conflict', 'unavailable', 'upstream', 'internal'] as const;
export type ErrorKind = (typeof errorKindNames)[number];

export interface KindAnswer {
  /** What an HTTP route answers with. */
  httpStatus: number;
  /**
   * GraphQL's `extensions.code`, and a Problem's `code` when the error's own code is not one
   * of GraphQL's (docs/api/error-codes.md); null: refusals of this kind are each their own
   * answer, so the error's own code is the GraphQL code (batch.not-pausable → BATCH_NOT_PAUSABLE).
   */
  graphqlCode: string | null;
  /** The CLI's exit code (docs/guide/cli.md, "Exit codes"): 1 the answer is no, 2 a mistake in the command, 3 could not finish. */
  exitCode: number;
}

/** Numbers as in src/cli/cli-error.ts `exitCodes`, written out because a kernel does not import the CLI. */
export const errorKinds = {
  /** The caller's input is refused: fix it and ask again. */
  input: { httpStatus: 400, graphqlCode: 'BAD_USER_INPUT', exitCode: 2 },
  /** What the caller named does not exist (or is not theirs to see). */
  'not-found': { httpStatus: 404, graphqlCode: null, exitCode: 2 },
  /** The object is in a state that refuses this step, or the wrong person asked: the answer is no. */
  state: { httpStatus: 409, graphqlCode: null, exitCode: 1 },
  /** Someone else holds it or changed it (another process, another payment under the same id). */
  conflict: { httpStatus: 409, graphqlCode: null, exitCode: 2 },
  /** Something this side depends on was in trouble (the database; for the CLI, its gateway): try again later. */
  unavailable: { httpStatus: 503, graphqlCode: 'DATABASE_UNAVAILABLE', exitCode: 3 },
  /** The partner's Payout API refused, failed or could not be reached. */
  upstream: { httpStatus: 502, graphqlCode: 'PAYOUT_ERROR', exitCode: 3 },
  /** Something in this service went wrong: GraphQL masks its words, the CLI prints them as a failure, not a refusal. */
  internal: { httpStatus: 500, graphqlCode: 'INTERNAL_SERVER_ERROR', exitCode: 3 },
} as const satisfies Readonly<Record<ErrorKind, KindAnswer>>;

/** A status someone else chose (the sandbox's pairing of the partner's codes) read back as a kind. */
export function kindOfHttpStatus(status: number): ErrorKind {
  if (status === 404) return 'not-found';
  if (status === 409) return 'conflict';
  if (status === 402 || status === 422) return 'state';
  if (status === 502 || status === 504) return 'upstream';
  if (status >= 500) return status === 503 ? 'unavailable' : 'internal';
  return 'input';
}

export abstract class GatewayError extends Error {
  /** Stable and machine-readable (batch.same-person, money.format, EVENT_NOT_FOUND): tests, scripts and clients branch on it. */
  abstract readonly code: string;
  abstract readonly kind: ErrorKind;
  /** The request it was met under, when the place that knows it set it (a CLI refusal quoting the gateway's). */
  requestId: string | undefined;
}

/** What the error's kind answers at the edges; a function, not a getter on the root, because classes such as PayoutApiError keep an `httpStatus` of their own (the upstream's). */
export function answerOf(error: GatewayError): KindAnswer {
  return errorKinds[error.kind];
}

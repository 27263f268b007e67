import { PothosValidationError } from '@pothos/core';
import { ForbiddenError } from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import { maskError as yogaMaskError } from 'graphql-yoga';
import { databaseTrouble } from '../db/connection-lost.ts';
import { answerOf, errorKinds, GatewayError } from '../lib/gateway-error.ts';
import { redactCardNumbers } from '../log/card-numbers.ts';
import { PaymentInputError } from '../payments/input-error.ts';
import { PayoutError } from '../payout/errors.ts';
import { enumName, payoutErrorCode, problemCodeNames } from './types/enums.ts';

/**
 * The one vocabulary of `extensions.code` (docs/api/error-codes.md): upper-case words as
 * yoga and Apollo use them, and as the typed mutation results spell their codes
 * (PayoutError.code, BatchError.code). A query that fails reads the same as a mutation
 * that fails for the same reason.
 *
 * Set elsewhere: UNAUTHENTICATED (yoga.ts, context), PAYLOAD_TOO_LARGE (body-limits.ts),
 * the limits' codes (limits/), FORBIDDEN_ORIGIN / FORBIDDEN_HOST (auth/browser-guard.ts),
 * PERSISTED_QUERY_NOT_FOUND / PERSISTED_QUERY_HASH_MISMATCH / TRUSTED_DOCUMENTS_ONLY (persisted-operations.ts),
 * BAD_REQUEST / GRAPHQL_PARSE_FAILED / GRAPHQL_VALIDATION_FAILED / INTERNAL_SERVER_ERROR (yoga).
 */
export const BAD_USER_INPUT = errorKinds.input.graphqlCode;
export const FORBIDDEN = 'FORBIDDEN';
export const PAYOUT_ERROR = errorKinds.upstream.graphqlCode;
/** The database was in trouble while the request ran (db/connection-lost.ts says which); read, then try again. */
export const DATABASE_UNAVAILABLE = errorKinds.unavailable.graphqlCode;

/** DATABASE_UNAVAILABLE's words: what is wrong (databaseTrouble), and what the caller does next. */
export function databaseUnavailableMessage(words: string, paymentId?: string): string {
  const again =
    paymentId === undefined
      ? 'read the object again, then repeat the request if it is still needed.'
      : `read payment ${paymentId} again, then repeat the request with paymentId ${paymentId} if it is still needed (the same paymentId never pays twice).`;
  return `The database is unavailable: ${words}. This request may or may not have taken effect: ${again}`;
}

/** A database in trouble under a request that concerns one payment (createPayment): its DATABASE_UNAVAILABLE names the payment. */
export class DatabaseUnavailableFor extends GatewayError {
  readonly code = 'database.unavailable';
  readonly kind = 'unavailable';
  constructor(
    override readonly cause: unknown,
    readonly paymentId: string,
  ) {
    super('the database was in trouble');
    this.name = 'DatabaseUnavailableFor';
  }
}

/**
 * A typed refusal's `code` (the Problem interface, ErrorCode): its own code where GraphQL has
 * it (batch.not-pausable → BATCH_NOT_PAUSABLE, PAYMENT_CANCELLED), else its kind's
 * (InputError and ReconciliationPeriodError: BAD_USER_INPUT). The partner's codes are a
 * vocabulary of their own: a known one by name, any other OTHER. Read by name, not by
 * instanceof: the errors plugin hands resolvers a proxy (types/errors.ts).
 */
export function problemCode(error: GatewayError): string {
  if (error.kind === 'upstream') return enumName(payoutErrorCode(error.code));
  const own = enumName(error.code);
  return problemCodeNames.has(own) ? own : (answerOf(error).graphqlCode ?? own);
}

type Located = Pick<GraphQLError, 'nodes' | 'path'>;

/**
 * Yoga's error mask with codes: known errors keep their words and get their code; the
 * rest is masked as `Unexpected error.` (INTERNAL_SERVER_ERROR) by yoga.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  // Duck-typed: graphql ships CJS and ESM builds, and a loader that mixes them has two GraphQLError classes.
  const located = error as Partial<Located> & { originalError?: unknown; extensions?: Record<string, unknown> };
  const original = located.originalError ?? error;
  const at = { nodes: located.nodes, path: located.path };
  if (original instanceof PayoutError) return payoutError(original, at);
  if (original instanceof PaymentInputError) {
    return coded(original.message, at, errorKinds[original.kind].graphqlCode, {
      fieldErrors: original.problems.map(({ path, message: m }) => ({ path, message: m })),
    });
  }
  if (original instanceof ForbiddenError) return coded(original.message, at, FORBIDDEN);
  if (original instanceof PothosValidationError) return coded(original.message, at, BAD_USER_INPUT);
  const trouble = databaseTrouble(original);
  if (trouble !== undefined) {
    // Interactive transactions lost before their commit were already run again (db/transaction-retry.ts):
    // what reaches a client may or may not have taken effect, so it reads before it repeats.
    const paymentId = original instanceof DatabaseUnavailableFor ? original.paymentId : undefined;
    return coded(databaseUnavailableMessage(trouble.words, paymentId), at, DATABASE_UNAVAILABLE, {
      retryable: true,
      reason: trouble.reason,
      ...(paymentId === undefined ? {} : { paymentId }),
    });
  }
  if (isGraphQLErrorChain(error) && located.path === undefined && located.extensions?.code === undefined) {
    // graphql-js's own refusals of a request: variable values that do not coerce (with the
    // scalar's reason), a missing or unknown operation name.
    // Without "Did you mean …?": suggestions would map the schema for a caller who may not introspect it.
    // It also echoes the value refused, which may hold a card number.
    const text = redactCardNumbers(withoutSuggestion((error as GraphQLError).message));
    return coded(text, at, text.startsWith('Variable "$') ? BAD_USER_INPUT : 'BAD_REQUEST');
  }
  return yogaMaskError(error, message, isDev);
}

/** graphql-js's " Did you mean "a" or "b"?" (fields, enum values, input members) ends its messages. */
const SUGGESTION = / ?Did you mean .+\?$/;

export function withoutSuggestion(text: string): string {
  return text.replace(SUGGESTION, '');
}

/** A GraphQLError made by graphql-js or a scalar, with nothing but GraphQLErrors inside it (yoga's test for "not masked"). */
function isGraphQLErrorChain(error: unknown): boolean {
  let e: unknown = error;
  while (e != null) {
    if (!(e instanceof Error) || !('extensions' in e)) return false;
    e = (e as { originalError?: unknown }).originalError;
  }
  return true;
}

/** The same words and codes as the PayoutError type of mutation results; no transport detail. */
function payoutError(error: PayoutError, at: Partial<Located>): GraphQLError {
  const traceId = (error as { traceId?: unknown }).traceId;
  return coded(error.message, at, errorKinds[error.kind].graphqlCode, {
    payoutErrorCode: problemCode(error),
    upstreamCode: error.code,
    retryable: error.retryable,
    ...(typeof traceId === 'string' ? { traceId } : {}),
  });
}

function coded(message: string, at: Partial<Located>, code: string, more: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { nodes: at.nodes ?? null, path: at.path ?? null, extensions: { code, ...more } });
}

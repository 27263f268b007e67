import type { GatewayError } from '../../lib/gateway-error.ts';
import { PayoutError, type PayoutApiError } from '../../payout/errors.ts';
import { PaymentInputError, type FieldProblem } from '../../payments/input-error.ts';
import { builder } from '../builder.ts';
import { problemCode } from '../error-codes.ts';
import { ErrorCodeEnum } from './enums.ts';

/**
 * What every typed mutation error shares: a message for a person and one `code` from one
 * enum (ErrorCode), so a client handles `... on Problem { code message }` once for every
 * mutation. Every error type resolves it from the error root's code and kind (problemCode);
 * each keeps its own field only for the words of its description.
 */
export const Problem = builder.interfaceRef<GatewayError>('Problem').implement({
  description:
    'A refusal returned as data by a mutation (a member of its `…Result` union). Nothing was done unless the type says otherwise.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, for a person; may change between versions: branch on `code`.' }),
    code: t.field({
      type: ErrorCodeEnum,
      description: 'Stable machine-readable reason (docs/api/error-codes.md).',
      resolve: problemCode,
    }),
  }),
});

const ErrorCause = builder.objectRef<{ parameter: string; messages: string[] }>('ErrorCause').implement({
  description: 'One entry of the upstream Error’s cause: a parameter and what is wrong with it.',
  fields: (t) => ({
    parameter: t.exposeString('parameter', { description: 'The parameter, as the upstream names it.' }),
    messages: t.exposeStringList('messages', { description: 'What is wrong with it, in the upstream’s words.' }),
  }),
});

/**
 * The errors plugin hands resolvers a proxy whose prototype is the registered class
 * (PayoutError), so subclass fields are read by name rather than by instanceof.
 */
const api = (error: PayoutError): Partial<PayoutApiError> => error as Partial<PayoutApiError>;

builder.objectType(PayoutError, {
  name: 'PayoutError',
  description: 'The Payout API refused the call or could not be reached; nothing was paid unless `code` says otherwise.',
  interfaces: [Problem],
  fields: (t) => ({
    code: t.field({
      type: ErrorCodeEnum,
      description: 'The upstream or client code (one of the PayoutErrorCode names), or OTHER for one this version does not know.',
      resolve: problemCode,
    }),
    upstreamCode: t.string({ description: 'The code exactly as received.', resolve: (error) => error.code }),
    retryable: t.boolean({ description: 'The same request may succeed later.', resolve: (error) => error.retryable }),
    userMessage: t.string({
      nullable: true,
      description: 'The upstream’s message meant for an end user; null when it gave none (or was not reached).',
      resolve: (error) => api(error).userMessage ?? null,
    }),
    traceId: t.string({
      nullable: true,
      description: 'The upstream’s trace id, for its support; null when it gave none.',
      resolve: (error) => api(error).traceId ?? null,
    }),
    causes: t.field({
      type: [ErrorCause],
      description: 'Per-parameter reasons the upstream gave (validation.error); empty when none.',
      resolve: (error) => Object.entries(api(error).details ?? {}).map(([parameter, messages]) => ({ parameter, messages })),
    }),
  }),
});

const FieldError = builder.objectRef<FieldProblem>('FieldError').implement({
  description: 'One refused part of the input.',
  fields: (t) => ({
    path: t.exposeStringList('path', { description: 'Where in the input, e.g. ["input", "amount"].' }),
    message: t.exposeString('message', { description: 'What is wrong with it, for a person.' }),
  }),
});

builder.objectType(PaymentInputError, {
  name: 'InputError',
  description: 'The input was refused before any upstream call.',
  interfaces: [Problem],
  fields: (t) => ({
    code: t.field({ type: ErrorCodeEnum, description: 'Always BAD_USER_INPUT.', resolve: problemCode }),
    fieldErrors: t.field({
      type: [FieldError],
      description: 'Each refused part of the input; at least one.',
      resolve: (error) => error.problems,
    }),
  }),
});

/** The typed errors every payment mutation may return. */
export const paymentErrors = [PayoutError, PaymentInputError];

/** Errors-plugin options naming a mutation's result union `<Name>Result` and its success type `<Name>Success { <dataField> }`. */
export function typedResult(name: string, types: Array<new (...args: never[]) => Error>, dataField: string, dataDescription?: string) {
  const mutation = name.charAt(0).toLowerCase() + name.slice(1);
  return {
    types,
    union: {
      name: `${name}Result`,
      description: `What ${mutation} returns: ${name}Success, or a refusal (every refusal implements Problem).`,
    },
    result: { name: `${name}Success`, description: `${mutation} did what it was asked.` },
    dataField: { name: dataField, description: dataDescription ?? `The ${dataField} as it stands after ${mutation}.` },
  };
}

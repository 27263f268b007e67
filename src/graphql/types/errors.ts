import { PayoutError, type PayoutApiError } from '../../payout/errors.ts';
import { PaymentInputError, type FieldProblem } from '../../payments/input-error.ts';
import { builder } from '../builder.ts';
import { PayoutErrorCodeEnum, payoutErrorCode } from './enums.ts';

const ErrorCause = builder.objectRef<{ parameter: string; messages: string[] }>('ErrorCause').implement({
  description: 'One entry of the upstream Error’s cause: a parameter and what is wrong with it.',
  fields: (t) => ({
    parameter: t.exposeString('parameter'),
    messages: t.exposeStringList('messages'),
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
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.field({ type: PayoutErrorCodeEnum, resolve: (error) => payoutErrorCode(error.code) as never }),
    upstreamCode: t.string({ description: 'The code exactly as received.', resolve: (error) => error.code }),
    retryable: t.boolean({ description: 'The same request may succeed later.', resolve: (error) => error.retryable }),
    userMessage: t.string({ nullable: true, resolve: (error) => api(error).userMessage ?? null }),
    traceId: t.string({ nullable: true, resolve: (error) => api(error).traceId ?? null }),
    causes: t.field({
      type: [ErrorCause],
      resolve: (error) =>
        Object.entries(api(error).details ?? {}).map(([parameter, messages]) => ({ parameter, messages })),
    }),
  }),
});

const FieldError = builder.objectRef<FieldProblem>('FieldError').implement({
  fields: (t) => ({
    path: t.exposeStringList('path', { description: 'Where in the input, e.g. ["input", "amount"].' }),
    message: t.exposeString('message'),
  }),
});

builder.objectType(PaymentInputError, {
  name: 'InputError',
  description: 'The input was refused before any upstream call.',
  fields: (t) => ({
    message: t.exposeString('message'),
    fieldErrors: t.field({ type: [FieldError], resolve: (error) => error.problems }),
  }),
});

/** The typed errors every payment mutation may return. */
export const paymentErrors = [PayoutError, PaymentInputError];

/** Errors-plugin options naming a mutation's result union `<Name>Result` and its success type `<Name>Success { <dataField> }`. */
export function typedResult(name: string, types: Array<new (...args: never[]) => Error>, dataField: string) {
  return { types, union: { name: `${name}Result` }, result: { name: `${name}Success` }, dataField: { name: dataField } };
}

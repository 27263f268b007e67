import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { containsCardNumber } from '../../../log/card-numbers.ts';
import { moneyObject } from '../../../money/money-wire.ts';
import { authScopesFor } from '../../../auth/roles.ts';
import { PaymentId } from '../../../payout/models.ts';
import { PaymentInputError } from '../../../payments/input-error.ts';
import { PaymentRefusedError } from '../../../payments/payment-refusal.ts';
import { requestActor } from '../../../audit/audit.ts';
import type { PaymentView } from '../../../payments/payment-service.ts';
import { webhookTargetProblem } from '../../../payments/webhook-target.ts';
import { payeeIdProblem } from '../../../batch/index.ts';
import { builder } from '../../builder.ts';
import { DatabaseUnavailableFor, problemCode } from '../../error-codes.ts';
import { databaseTrouble } from '../../../db/connection-lost.ts';
import { CurrencyEnum, ErrorCodeEnum } from '../enums.ts';
import { Problem, paymentErrors, typedResult } from '../errors.ts';
import { Payment } from './payment.ts';
import { inputPathFor, recipientFromInput, RecipientInput } from './recipient-input.ts';

const paymentIdSchema = PaymentId;
// Only the shape here; where it may point is webhook-target.ts's call, made in the resolver.
const webhookUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
/** The payroll file's payee column rule (batch/import/validate-row.ts), so a payee is one id in both. */
const payeeSchema = z.string().superRefine((payee, context) => {
  const problem = payeeIdProblem(payee);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem.message });
});
const includeChangedAccountWords =
  'Execute it even though its payee was last paid to another account (Payment.payeeMark ACCOUNT_CHANGED; recorded in the audit trail). Without it such a payment is refused with PAYEE_ACCOUNT_CHANGED.';

const KeyValueInput = builder.inputType('KeyValueInput', {
  description: 'One custom field: a key and its value, passed to the upstream as sent.',
  fields: (t) => ({
    key: t.string({ required: true, description: '1 to 64 characters; no card number.', validate: { minLength: 1, maxLength: 64 } }),
    value: t.string({ required: true, description: 'At most 256 characters; no card number.', validate: { maxLength: 256 } }),
  }),
});

const CreatePaymentInput = builder.inputType('CreatePaymentInput', {
  description: 'A payment to create: the amount, the provider with its recipient, and how to follow it.',
  fields: (t) => ({
    paymentId: t.id({
      description: 'Your idempotency key, 1 to 36 characters. Sending the same one again never pays twice. A UUID is made when absent.',
      validate: { schema: paymentIdSchema },
    }),
    amount: t.field({
      type: 'Decimal',
      required: true,
      description: 'What to pay, a string with two decimals (e.g. "1500.00"); within the provider’s limits.',
    }),
    currency: t.field({ type: CurrencyEnum, defaultValue: 'RUB', description: 'The amount’s currency.' }),
    recipient: t.field({
      type: RecipientInput,
      required: true,
      description: 'The provider (the one member set) and the recipient’s fields.',
    }),
    webhookUrl: t.string({
      description: 'Where the upstream posts status changes. Default: this gateway’s /webhooks/payout.',
      validate: { schema: webhookUrlSchema },
    }),
    payee: t.string({
      description:
        'The company’s id for the person paid (an employee or contractor number), as in a payroll file’s payee column: at most 36 letters, digits and . _ / -. The payment is marked against the account that payee was last paid to (Payment.payeeMark), and once paid its account is the one remembered.',
      validate: { schema: payeeSchema },
    }),
    customFields: t.field({
      type: [KeyValueInput],
      description: 'At most 20 fields of your own, kept with the payment and shown in Payment.customFields.',
      validate: { maxLength: [20, { message: 'at most 20 custom fields' }] },
    }),
    execute: t.boolean({
      defaultValue: false,
      description:
        'Execute right after creating it. Above PAYMENT_SECOND_PERSON_ABOVE it is only created: the answer is SECOND_PERSON_REQUIRED, and another key executes it.',
    }),
    includeChangedAccount: t.boolean({ defaultValue: false, description: `With execute: ${includeChangedAccountWords}` }),
  }),
});

/**
 * A custom field problem (["customFields", key], or ["customFields"] for a key that holds
 * a card number) at its place in the input list: the entry whose value was sent (the last
 * one of that key), or the first whose key holds a card number.
 */
function customFieldPath(path: string[], entries: ReadonlyArray<{ key: string; value: string }>): string[] {
  const key = path[1];
  const at = key === undefined ? entries.findIndex((f) => containsCardNumber(f.key)) : entries.findLastIndex((f) => f.key === key);
  if (at < 0) return ['input', 'customFields'];
  return ['input', 'customFields', String(at), key === undefined ? 'key' : 'value'];
}

builder.objectType(PaymentRefusedError, {
  name: 'PaymentRefusedError',
  description: 'The gateway refused to execute the payment; nothing was sent upstream for the execute.',
  interfaces: [Problem],
  fields: (t) => ({
    code: t.field({
      type: ErrorCodeEnum,
      description:
        'PAYMENT_CANCELLED: its batch row was cancelled after the create, the payment stays READY upstream until it expires. ' +
        'SECOND_PERSON_REQUIRED: above PAYMENT_SECOND_PERSON_ABOVE a key other than the creator’s must execute it (createPayment with execute: the payment was created and is READY). ' +
        'PAYEE_ACCOUNT_CHANGED: its payee was last paid to another account; executed only with includeChangedAccount (createPayment with execute: the payment was created and is READY).',
      resolve: problemCode,
    }),
    paymentId: t.exposeID('paymentId', {
      description:
        'The payment concerned: after a createPayment whose execute was refused, the one now READY (for a second key, or an executor who includes its changed account).',
    }),
  }),
});

const paymentResult = (name: string) => typedResult(name, [...paymentErrors, PaymentRefusedError], 'payment');

builder.mutationFields((t) => ({
  createPayment: t.field({
    type: Payment,
    description: 'Creates a payment (and executes it when `execute` is true). Checked against the provider’s live limits and fields first.',
    authScopes: authScopesFor('createPayment'),
    errors: paymentResult('CreatePayment'),
    args: { input: t.arg({ type: CreatePaymentInput, required: true, description: 'The payment to create.' }) },
    resolve: async (_root, { input }, { services, caller, role, via, requestId, client, webhookTargets }): Promise<PaymentView> => {
      if (input.webhookUrl != null) {
        const problem = await webhookTargetProblem(input.webhookUrl, webhookTargets);
        if (problem !== undefined) {
          throw new PaymentInputError([{ path: ['input', 'webhookUrl'], code: 'webhook-url.refused', message: problem }]);
        }
      }
      const recipient = recipientFromInput(input.recipient as never);
      const customFields = input.customFields?.length ? Object.fromEntries(input.customFields.map((f) => [f.key, f.value])) : undefined;
      // Made here when the caller sent none, so that a DATABASE_UNAVAILABLE can name it: the
      // caller reads that payment and repeats with it, which never pays twice.
      const paymentId = input.paymentId == null ? randomUUID() : String(input.paymentId);
      try {
        return await services.payments.create({
          paymentId,
          payload: {
            amount: moneyObject(input.amount, input.currency ?? 'RUB'),
            recipientDetails: { providerCode: recipient.provider, fields: recipient.fields },
            ...(input.webhookUrl == null ? {} : { webhookUrl: input.webhookUrl }),
            ...(customFields === undefined ? {} : { customFields }),
          },
          ...(input.payee == null ? {} : { payeeId: input.payee }),
          execute: input.execute ?? false,
          includeChangedAccount: input.includeChangedAccount ?? false,
          requestedBy: caller,
          by: requestActor({ role, caller, via, requestId, client }),
        });
      } catch (error) {
        if (databaseTrouble(error) !== undefined) throw new DatabaseUnavailableFor(error, paymentId);
        if (!(error instanceof PaymentInputError)) throw error;
        const entries = input.customFields ?? [];
        throw new PaymentInputError(
          error.problems.map((p) => ({
            ...p,
            path: p.path[0] === 'customFields' ? customFieldPath(p.path, entries) : inputPathFor(p.path, recipient.provider),
          })),
        );
      }
    },
  }),
  executePayment: t.field({
    type: Payment,
    description:
      'Executes a READY payment. Safe to repeat: a final payment is returned as it is. Refused (PaymentRefusedError) for a payment of a cancelled batch row, ' +
      'above PAYMENT_SECOND_PERSON_ABOVE for the key that created it, and for a payment whose payee was last paid to another account unless includeChangedAccount is true.',
    authScopes: authScopesFor('executePayment'),
    errors: paymentResult('ExecutePayment'),
    args: {
      paymentId: t.arg.id({
        required: true,
        description: 'The payment’s own id (Payment.paymentId).',
        validate: { schema: paymentIdSchema },
      }),
      includeChangedAccount: t.arg.boolean({ defaultValue: false, description: includeChangedAccountWords }),
    },
    resolve: (_root, { paymentId, includeChangedAccount }, { services, caller, role, via, requestId, client }) =>
      services.payments.execute(String(paymentId), {
        executedBy: caller,
        by: requestActor({ role, caller, via, requestId, client }),
        includeChangedAccount: includeChangedAccount ?? false,
      }),
  }),
}));

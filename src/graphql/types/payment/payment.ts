import { cursorToOffset, resolveOffsetConnection } from '@pothos/plugin-relay';
import type { TrackedStatus } from '../../../db/generated/enums.ts';
import { maskRecipientFields } from '../../../log/mask.ts';
import { moneyObject } from '../../../money/money-wire.ts';
import { statusErrorCodes, type BillingDetails, type Money as MoneyShape, type StatusErrorCode } from '../../../payout/models.ts';
import type { PaymentView } from '../../../payments/payment-service.ts';
import type { PayoutError } from '../../../payout/errors.ts';
import { localOnly } from '../../../payments/status.ts';
import { builder } from '../../builder.ts';
import { Money } from '../balance.ts';
import { checkPageSizes, pageArgumentError, pageOptions, pageSizeNote, readCursor } from '../paging.ts';
import {
  PaymentErrorCodeEnum,
  PaymentStatusEnum,
  PayoutErrorCodeEnum,
  ProviderCodeEnum,
  StatusSourceEnum,
  TrackingStatusEnum,
  payoutErrorCode,
} from '../enums.ts';
import type { StatusSource } from '../../../payments/payment-records.ts';
import { PayeeMarkType } from '../payee-mark.ts';

export const KeyValue = builder.objectRef<{ key: string; value: string }>('KeyValue').implement({
  description: 'A named value (a recipient field, a custom field, a fact of an audit event).',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The name.' }),
    value: t.exposeString('value', { description: 'The value, as text.' }),
  }),
});

export const BillingDetailsType = builder.objectRef<BillingDetails>('BillingDetails').implement({
  description: 'What the recipient’s side reported about the payment.',
  fields: (t) => ({
    transactionId: t.string({
      nullable: true,
      description: 'The provider’s transaction id; null when not reported.',
      resolve: (b) => b.transactionId ?? null,
    }),
    rrn: t.string({
      nullable: true,
      description: 'Retrieval reference number of a card payment; null when not reported.',
      resolve: (b) => b.rrn ?? null,
    }),
    accountNumber: t.string({
      nullable: true,
      description: 'The account credited, masked as reported; null when not reported.',
      resolve: (b) => b.accountNumber ?? null,
    }),
    accountInfo: t.string({
      nullable: true,
      description: 'More about that account, as reported; null when not reported.',
      resolve: (b) => b.accountInfo ?? null,
    }),
    receiptUrl: t.string({
      nullable: true,
      description: 'Where the provider’s receipt is; null when there is none.',
      resolve: (b) => b.receiptUrl ?? null,
    }),
  }),
});

interface HistoryEntry {
  status: TrackedStatus;
  errorCode: string | null;
  errorMessage: string | null;
  source: string;
  changedAt: Date | null;
  recordedAt: Date;
}

const PaymentStatusChange = builder.objectRef<HistoryEntry>('PaymentStatusChange').implement({
  description: 'One status the gateway recorded for a payment, and how it learned it.',
  fields: (t) => ({
    status: t.field({ type: TrackingStatusEnum, description: 'The status recorded.', resolve: (h) => h.status }),
    errorCode: t.string({
      nullable: true,
      description:
        'With FAILED, EXPIRED, REJECTED or UNKNOWN: the code as recorded (an upstream status or Error code, or the client’s); open-ended. Otherwise null.',
      resolve: (h) => h.errorCode,
    }),
    errorMessage: t.string({ nullable: true, description: 'The error in words; null without one.', resolve: (h) => h.errorMessage }),
    source: t.field({ type: StatusSourceEnum, description: 'How the gateway learned it.', resolve: (h) => h.source as StatusSource }),
    changedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'The upstream’s time of the change.',
      resolve: (h) => h.changedAt,
    }),
    recordedAt: t.field({ type: 'DateTime', description: 'When the gateway recorded it.', resolve: (h) => h.recordedAt }),
  }),
});

const isStatusErrorCode = (code: string | null | undefined): code is StatusErrorCode =>
  code != null && (statusErrorCodes as readonly string[]).includes(code);

function amountOf(view: PaymentView): MoneyShape {
  if (view.upstream !== undefined) return view.upstream.amount;
  return moneyObject(view.tracked!.amount, view.tracked!.currency as 'RUB');
}

export const paymentReadSources = ['LIVE', 'RECORDED'] as const;
export type PaymentReadSource = (typeof paymentReadSources)[number];

const PaymentReadSourceEnum = builder.enumType('PaymentReadSource', {
  description: 'Where a payment as shown comes from.',
  values: {
    LIVE: { description: 'Read from the upstream just now (readAt), merged with the gateway’s record.' },
    RECORDED: {
      description:
        'The gateway’s record alone, as last written (readAt): the upstream was not asked, or did not answer (liveReadError says why).',
    },
  },
});

interface Freshness {
  source: PaymentReadSource;
  readAt: Date;
  failure: PayoutError | undefined;
}

/** A view with the upstream's payment was read live; any other is the record as it stands. */
function freshnessOf(view: PaymentView): Freshness {
  if (view.upstream !== undefined) return { source: 'LIVE', readAt: view.readAt ?? new Date(), failure: undefined };
  return { source: 'RECORDED', readAt: view.tracked?.updatedAt ?? view.readAt ?? new Date(), failure: view.liveReadFailure };
}

const PaymentFreshness = builder.objectRef<Freshness>('PaymentFreshness').implement({
  description: 'Whether a payment as shown is the upstream’s answer of now or the gateway’s record, and as of when.',
  fields: (t) => ({
    source: t.field({ type: PaymentReadSourceEnum, description: 'LIVE or RECORDED.', resolve: (f) => f.source }),
    readAt: t.field({
      type: 'DateTime',
      description: 'LIVE: when the upstream was read. RECORDED: when the gateway last wrote its record.',
      resolve: (f) => f.readAt,
    }),
    liveReadErrorCode: t.string({
      nullable: true,
      description:
        'RECORDED because the upstream did not answer: its error code (network.error, network.timeout, partner.unavailable, an upstream code with 429 or 5xx). Null otherwise.',
      resolve: (f) => f.failure?.code ?? null,
    }),
    liveReadError: t.string({
      nullable: true,
      description: 'That error in words; null otherwise.',
      resolve: (f) => f.failure?.message ?? null,
    }),
  }),
});

export const Payment = builder.node(builder.objectRef<PaymentView>('Payment'), {
  description: 'A payment as the upstream reports it, merged with the gateway’s own record of it.',
  id: { resolve: (p) => p.paymentId },
  // Read as `payment(paymentId:)` reads it: from the upstream now, merged with the record.
  loadOne: (paymentId, { services }) => services.payments.read(paymentId),
  authScopes: { read: true },
  runScopesOnType: true,
  fields: (t) => ({
    paymentId: t.exposeID('paymentId', { description: 'The payment’s own id, as the upstream and the CLI know it.' }),
    status: t.field({
      type: PaymentStatusEnum,
      nullable: true,
      description: 'The upstream status; null while the upstream has not confirmed the payment.',
      resolve: ({ upstream, tracked }) =>
        upstream?.status.value ?? (tracked !== undefined && !localOnly.has(tracked.status) ? (tracked.status as never) : null),
    }),
    trackingStatus: t.field({
      type: TrackingStatusEnum,
      nullable: true,
      description: 'The gateway’s record; null for a payment it never tracked.',
      resolve: ({ tracked }) => tracked?.status ?? null,
    }),
    errorCode: t.field({
      type: PaymentErrorCodeEnum,
      nullable: true,
      description: 'Why it FAILED or EXPIRED; null otherwise, or for a code this gateway does not know (see upstreamErrorCode).',
      resolve: ({ upstream, tracked }) => [upstream?.status.errorCode, tracked?.errorCode].find(isStatusErrorCode) ?? null,
    }),
    upstreamErrorCode: t.string({
      nullable: true,
      description: 'The upstream’s status error code exactly as sent, also one newer than this gateway knows (then `errorCode` is null).',
      resolve: ({ upstream, tracked }) =>
        upstream?.status.errorCode ?? (tracked !== undefined && !localOnly.has(tracked.status) ? tracked.errorCode : null),
    }),
    errorMessage: t.string({
      nullable: true,
      description: 'The error in words; null without one.',
      resolve: ({ upstream, tracked }) => upstream?.status.errorMessage ?? tracked?.errorMessage ?? null,
    }),
    trackingErrorCode: t.field({
      type: PayoutErrorCodeEnum,
      nullable: true,
      description: 'For REJECTED and UNKNOWN: the error that ended the attempt.',
      resolve: ({ tracked }) =>
        tracked !== undefined && localOnly.has(tracked.status) && tracked.errorCode !== null
          ? (payoutErrorCode(tracked.errorCode) as never)
          : null,
    }),
    statusChangedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the status last changed, by the upstream’s clock; null when unknown.',
      resolve: ({ upstream, tracked }) =>
        upstream !== undefined ? new Date(upstream.status.changedDateTime) : (tracked?.statusChangedAt ?? null),
    }),
    amount: t.field({ type: Money, description: 'What is paid to the recipient.', resolve: amountOf }),
    commission: t.field({
      type: Money,
      nullable: true,
      description: 'The upstream’s commission on top of the amount; null until it says.',
      resolve: ({ upstream, tracked }) =>
        upstream?.commission ?? (tracked?.commission != null ? moneyObject(tracked.commission, tracked.currency as 'RUB') : null),
    }),
    provider: t.field({
      type: ProviderCodeEnum,
      description: 'The provider it is paid through.',
      resolve: ({ upstream, tracked }) => upstream?.recipientDetails.providerCode ?? (tracked!.providerCode as never),
    }),
    recipient: t.field({
      type: [KeyValue],
      description: 'Recipient fields by their upstream names; card numbers and accounts masked.',
      resolve: ({ upstream, tracked }) =>
        Object.entries(
          upstream !== undefined ? maskRecipientFields(upstream.recipientDetails.fields) : (tracked!.recipient as Record<string, string>),
        ).map(([key, value]) => ({ key, value })),
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the upstream created it (or, before it confirmed, when the gateway recorded it).',
      resolve: ({ upstream, tracked }) =>
        upstream !== undefined ? new Date(upstream.creationDateTime) : (tracked!.upstreamCreatedAt ?? tracked!.createdAt),
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a payment not executed by then EXPIRES upstream; null until the upstream says.',
      resolve: ({ upstream, tracked }) => (upstream !== undefined ? new Date(upstream.expirationDateTime) : (tracked?.expiresAt ?? null)),
    }),
    billingDetails: t.field({
      type: BillingDetailsType,
      nullable: true,
      description: 'What the recipient’s side reported; null until it reports.',
      resolve: ({ upstream, tracked }) =>
        upstream?.billingDetails ?? (tracked?.billingDetails as BillingDetails | null | undefined) ?? null,
    }),
    customFields: t.field({
      type: [KeyValue],
      description: 'The custom fields sent with the create.',
      resolve: ({ upstream, tracked }) =>
        Object.entries(upstream?.customFields ?? (tracked?.customFields as Record<string, string> | null) ?? {}).map(([key, value]) => ({
          key,
          value,
        })),
    }),
    webhookUrl: t.string({
      nullable: true,
      description: 'Where the upstream posts its status changes; null when none was set.',
      resolve: ({ upstream, tracked }) => upstream?.webhookUrl ?? tracked?.webhookUrl ?? null,
    }),
    freshness: t.field({
      type: PaymentFreshness,
      description: 'Whether this is the upstream’s answer of now (LIVE) or the gateway’s record (RECORDED), as of when, and why not live.',
      resolve: freshnessOf,
    }),
    tracked: t.boolean({ description: 'Whether the gateway keeps a record of it.', resolve: ({ tracked }) => tracked !== undefined }),
    batchId: t.id({
      nullable: true,
      description: 'The batch whose row made it; null for a single payment.',
      resolve: ({ tracked }) => tracked?.batchId ?? null,
    }),
    batchRow: t.int({
      nullable: true,
      description: 'Line of the batch file it came from.',
      resolve: ({ tracked }) => tracked?.batchRow ?? null,
    }),
    payee: t.string({
      nullable: true,
      description:
        'The company’s id of the person paid (createPayment’s payee); null when none was given, and for a batch row’s payment (BatchItem.payee has it).',
      resolve: ({ tracked }) => tracked?.payeeId ?? null,
    }),
    payeeMark: t.field({
      type: PayeeMarkType,
      nullable: true,
      description:
        'For a payment with a payee: new payee, account changed since the last payment (executed only with includeChangedAccount), or known, as found at create. Null for a payment without a payee.',
      resolve: ({ tracked }) => (tracked?.payeeMark == null ? null : { kind: tracked.payeeMark, lastPaidAt: tracked.payeeLastPaidAt }),
    }),
    history: t.field({
      type: [PaymentStatusChange],
      description: 'Every status the gateway has seen, oldest first.',
      resolve: ({ tracked }) => tracked?.history ?? [],
    }),
  }),
});

builder.queryFields((t) => ({
  payment: t.field({
    type: Payment,
    nullable: true,
    description:
      'One payment, read from the upstream now and merged with the gateway’s record. For a payment the gateway has a record of, the upstream gets one attempt of about 1.5 s: when it does not answer in time (down, slow, throttling, failing), the record answers (freshness RECORDED, with why), so a person never waits for retries; one it has no record of is retried and is an error if the upstream never answers.',
    authScopes: { read: true },
    args: { paymentId: t.arg.id({ required: true, description: 'The payment’s own id (Payment.paymentId).' }) },
    resolve: (_root, { paymentId }, { services }) => services.payments.read(String(paymentId)),
  }),
  payments: t.connection({
    type: Payment,
    // The upstream list pages by limit/offset; cursors here are offsets.
    description: `Recent upstream payments, newest first (the upstream’s 50-day window when from/to are absent). "last" needs "before": the upstream’s list says nothing of its length. ${pageSizeNote(20)}`,
    authScopes: { read: true },
    args: {
      from: t.arg({ type: 'Date', description: 'First creation date, inclusive.' }),
      to: t.arg({ type: 'Date', description: 'Last creation date, inclusive.' }),
    },
    resolve: (_root, args, { services }) => {
      checkPageSizes(args);
      readCursor('payments', 'after', args.after ?? undefined, offsetOf);
      readCursor('payments', 'before', args.before ?? undefined, offsetOf);
      // The upstream list says nothing of its length: "last" counts back from a cursor only.
      if (args.last != null && args.before == null && args.first == null) {
        throw pageArgumentError('last', 'needs before on payments: the upstream’s list has no end to count back from');
      }
      return resolveOffsetConnection({ args, ...pageOptions(20) }, async ({ limit, offset }) => {
        const page = await services.client.listPayments({
          limit,
          offset,
          from: args.from ?? undefined,
          to: args.to ?? undefined,
        });
        const tracked = await services.tracker.findMany(page.map((p) => p.paymentId));
        return page.map((upstream) => ({ paymentId: upstream.paymentId, upstream, tracked: tracked.get(upstream.paymentId) }));
      });
    },
  }),
}));

function offsetOf(cursor: string): number | undefined {
  try {
    const offset = cursorToOffset(cursor);
    return Number.isSafeInteger(offset) && offset >= 0 ? offset : undefined;
  } catch {
    return undefined;
  }
}

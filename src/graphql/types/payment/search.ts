import { resolveCursorConnection } from '@pothos/plugin-relay';
import { GraphQLError } from 'graphql';
import { sqlOf } from '../../../db/database.ts';
import { decodePosition, encodePosition, type SearchPosition } from '../../../payments/payment-search.ts';
import { searchPayments } from '../../../payments/sql/search-payments.ts';
import type { PaymentView } from '../../../payments/payment-service.ts';
import { builder } from '../../builder.ts';
import type { GraphQLContext } from '../../context.ts';
import { TrackingStatusEnum } from '../enums.ts';
import { checkPageSizes, pageOptions, pageSizeNote, readCursor } from '../paging.ts';
import { Payment } from './payment.ts';

const DAY_MS = 86_400_000;

/** A payment found, with its place in the order for its cursor. */
type FoundPayment = PaymentView & { position: SearchPosition };

const badInput = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });

interface Waiter {
  batchId: string;
  line: number;
  resolve: (reference: string | null) => void;
  reject: (error: unknown) => void;
}

/**
 * The references of one response's payments, read in one query: every `reference` field
 * asked in the same tick (a page of payments) joins the same pending read.
 */
const pendingReferences = new WeakMap<GraphQLContext, Waiter[]>();

function referenceOf(context: GraphQLContext, batchId: string, line: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let waiters = pendingReferences.get(context);
    if (waiters === undefined) {
      const batch: Waiter[] = [];
      waiters = batch;
      pendingReferences.set(context, batch);
      setImmediate(() => {
        pendingReferences.delete(context);
        const rows = new Map(batch.map((w) => [`${w.batchId}/${w.line}`, { batchId: w.batchId, line: w.line }]));
        context.services.prisma.batchItem
          .findMany({ where: { OR: [...rows.values()] }, select: { batchId: true, line: true, reference: true } })
          .then(
            (found) => {
              const byRow = new Map(found.map((row) => [`${row.batchId}/${row.line}`, row.reference]));
              for (const waiter of batch) waiter.resolve(byRow.get(`${waiter.batchId}/${waiter.line}`) ?? null);
            },
            (error: unknown) => batch.forEach((waiter) => waiter.reject(error)),
          );
      });
    }
    waiters.push({ batchId, line, resolve, reject });
  });
}

builder.objectField(Payment, 'reference', (t) =>
  t.string({
    nullable: true,
    description: 'The payer’s reference from the batch row the payment pays; null for payments made through GraphQL.',
    resolve: ({ tracked }, _args, context) =>
      tracked?.batchId == null || tracked.batchRow == null ? null : referenceOf(context, tracked.batchId, tracked.batchRow),
  }),
);

builder.queryField('searchPayments', (t) =>
  t.connection({
    type: Payment,
    description:
      `The gateway’s own records of payments (every payment it made, batch or single, any date range), newest first by when the gateway recorded them. ` +
      `Filters combine with AND. Pages both ways (first/after, last/before) by position, not offset. ${pageSizeNote(20)}`,
    authScopes: { read: true },
    args: {
      reference: t.arg.string({
        description: 'The payer’s reference of the batch row (exact; every attempt of the row is found).',
        validate: { maxLength: 64 },
      }),
      batchId: t.arg.id({ description: 'Only payments of this batch’s rows.' }),
      status: t.arg({ type: TrackingStatusEnum, description: 'Only payments whose recorded status is this.' }),
      from: t.arg({ type: 'Date', description: 'First day (UTC), inclusive.' }),
      to: t.arg({ type: 'Date', description: 'Last day (UTC), inclusive.' }),
    },
    resolve: async (_root, args, { services }) => {
      checkPageSizes(args, 1);
      const from = args.from == null ? undefined : new Date(`${args.from}T00:00:00Z`);
      const before = args.to == null ? undefined : new Date(Date.parse(`${args.to}T00:00:00Z`) + DAY_MS);
      if (from !== undefined && before !== undefined && from >= before) throw badInput('from is after to');
      return resolveCursorConnection<Promise<FoundPayment[]>>(
        { args, ...pageOptions(20), toCursor: (found) => encodePosition(found.position) },
        async (page): Promise<FoundPayment[]> => {
          const older = readCursor('searchPayments', 'after', page.after, decodePosition);
          const newer = readCursor('searchPayments', 'before', page.before, decodePosition);
          const found = await searchPayments(sqlOf(services.prisma), {
            ...(args.reference == null ? {} : { reference: args.reference }),
            ...(args.batchId == null ? {} : { batchId: String(args.batchId) }),
            ...(args.status == null ? {} : { status: args.status }),
            ...(from === undefined ? {} : { from }),
            ...(before === undefined ? {} : { before }),
            ...(older === undefined ? {} : { after: older }),
            ...(newer === undefined ? {} : { until: newer }),
            oldestFirst: page.inverted,
            limit: page.limit,
          });
          const records = await services.tracker.findMany(found.map((p) => p.paymentId));
          return found.map((position) => ({ position, paymentId: position.paymentId, tracked: records.get(position.paymentId) }));
        },
      );
    },
  }),
);

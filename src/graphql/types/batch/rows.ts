import { resolveCursorConnection } from '@pothos/plugin-relay';
import type { BatchItem as BatchItemRow } from '../../../db/generated/client.ts';
import { heldForWhere, holdReasons, holdReasonsOf, type HoldReason } from '../../../payees/held-for-changed-account.ts';
import { builder } from '../../builder.ts';
import { Batch } from './batch.ts';
import { BatchItem, BatchItemStatusEnum } from './item.ts';
import { checkPageSizes, pageOptions, pageSizeNote, parseNumberCursor, readCursor } from '../paging.ts';

/**
 * Why a held row is held (issue 38): one status (DUPLICATE) covers two reasons a person
 * treats apart, a repeat of a payment and a payee whose account changed, and each is
 * released by its own choice of the approver. A reason, not a new row state, so the row
 * table and everything that reads it stay as they are.
 */
export const HoldReasonEnum = builder.enumType('HoldReason', {
  description: 'Why a held (DUPLICATE) row is held; a row may be held for both.',
  values: {
    [holdReasons.repeat]: {
      value: holdReasons.repeat,
      description: 'It repeats a payment (same payee, amount and reference): paid only with approveBatch includeHeld.',
    },
    [holdReasons.accountChanged]: {
      value: holdReasons.accountChanged,
      description:
        'Its payee’s account changed since the last payment to them (payeeMark ACCOUNT_CHANGED): paid only with approveBatch includeChangedAccounts.',
    },
  } as Record<HoldReason, { value: HoldReason; description: string }>,
});

builder.objectField(BatchItem, 'heldFor', (t) =>
  t.field({
    type: [HoldReasonEnum],
    description: 'For a held (DUPLICATE) row, why it is held (both reasons when both apply); empty for a row not held.',
    resolve: (item) => holdReasonsOf(item),
  }),
);

builder.objectField(Batch, 'items', (t) =>
  t.connection({
    type: BatchItem,
    description: `The file’s rows in line order. ${pageSizeNote(50)}`,
    args: {
      status: t.arg({ type: BatchItemStatusEnum, description: 'Only rows in this status.' }),
      heldFor: t.arg({ type: HoldReasonEnum, description: 'Only held rows held for this reason (among others); with status, both apply.' }),
    },
    // Keyed by line (index batchId, line): a page backwards costs what a page forwards does.
    resolve: (b, args, { services }) => {
      checkPageSizes(args);
      return resolveCursorConnection<Promise<BatchItemRow[]>>(
        { args, ...pageOptions(50), toCursor: (item) => String(item.line) },
        ({ before, after, limit, inverted }): Promise<BatchItemRow[]> => {
          const past = readCursor('items', 'after', after, parseNumberCursor);
          const until = readCursor('items', 'before', before, parseNumberCursor);
          return services.prisma.batchItem.findMany({
            where: {
              batchId: b.id,
              ...(args.status == null ? {} : { status: args.status }),
              ...(args.heldFor == null ? {} : { AND: [heldForWhere(args.heldFor)] }),
              ...(past === undefined && until === undefined
                ? {}
                : { line: { ...(past === undefined ? {} : { gt: Number(past) }), ...(until === undefined ? {} : { lt: Number(until) }) } }),
            },
            orderBy: [{ line: inverted ? 'desc' : 'asc' }],
            take: limit,
          });
        },
      );
    },
  }),
);

import { BatchItemStatus } from '../../db/generated/enums.ts';

/**
 * What a held row says about the payment it repeats, in the import's words and, at approval,
 * in SQL's (sql/hold-approved-repeats.ts): here, below both, so the approval's SQL need not
 * reach up into the import. What a repeat is: batch/import/held-rows.ts.
 */
export const ALREADY_PAID = 'row.already-paid';

/**
 * `%s` in order: line, batch, what became of the earlier row in words, day (UTC). Rendered
 * by the import (alreadyPaidMessage: "paid on 27 Nov 2026") and, at approval, by SQL's format() (hold-approved-repeats.ts)
 * with the same words: people read it, so no status enum name and no ISO day.
 */
export const ALREADY_PAID_TEMPLATE =
  'repeats line %s of batch %s (%s %s): the same payee, amount and reference; held back, paid only if the approver includes held rows';

/** The earlier row's state in words, before its day: completed, under review, or still being paid (the day of approval). */
export const repeatedRowWords = {
  [BatchItemStatus.COMPLETED]: 'paid on',
  [BatchItemStatus.NEEDS_REVIEW]: 'outcome under review since',
  paying: 'being paid, approved on',
} as const;

export function repeatedRowState(status: string): string {
  return status === BatchItemStatus.COMPLETED || status === BatchItemStatus.NEEDS_REVIEW
    ? repeatedRowWords[status]
    : repeatedRowWords.paying;
}

import type { PrismaClient } from '../../db/database.ts';
import type { BatchItemStatus } from '../../db/generated/client.ts';
import { fromMinorUnits, toMinorUnits } from '../../money/money.ts';
import { amountInWords } from '../../money/money-text.ts';
import { decimalText } from '../../money/money-wire.ts';
import { utcDateTime } from '../../money/readable-text.ts';
import { batchStates } from '../states/batch-states.ts';
import { payingItemStatuses, rowStates } from '../states/row-states.ts';
import type { FileProblem } from './read/csv-reader.ts';

/**
 * The batch a file was imported as before, found by its normalised-content key or, for
 * batches that hold none, by its exact bytes; and what to tell the uploader about it.
 */
export class EarlierImports {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * The batch this file was imported as, if any. Only a hint before the claim (which is
   * what settles a race), but it names the batch holding the key first.
   */
  async find(key: string, sha256: string) {
    return (await this.keyHolder(key)) ?? (await this.unkeyedEarlier(sha256));
  }

  /**
   * The file was imported before: say what became of that batch, so that nobody is told
   * to force an import of a payroll without knowing how much of it was paid.
   */
  async duplicateOf(earlier: { id: string; createdAt: Date; status: string }): Promise<FileProblem> {
    const groups = await this.prisma.batchItem.groupBy({
      by: ['status'],
      where: { batchId: earlier.id },
      _count: { _all: true },
      _sum: { amount: true },
    });
    const rows = groups.map((g) => ({ status: g.status, count: g._count._all, amount: decimalText(g._sum.amount ?? 0n) }));
    return {
      line: null,
      column: null,
      code: 'file.duplicate',
      message:
        `the same file was imported as batch ${earlier.id} on ${utcDateTime(earlier.createdAt)}; ${earlierOutcome(earlier, rows)}. ` +
        // No option named: the page, GraphQL (force) and the CLI (--force) each offer the repeat in their own words, or not at all.
        'Imported again on purpose as a repeat, every row paid or being paid is held back (held: it repeats a payment).',
    };
  }

  keyHolder(key: string) {
    return this.prisma.batch.findUnique({ where: { fileKey: key }, select: { id: true, createdAt: true, status: true } });
  }

  /**
   * Batches without a key that still count: forced imports, and those imported before keys
   * existed. Only the exact bytes can be matched for them.
   */
  private unkeyedEarlier(sha256: string) {
    return this.prisma.batch.findFirst({
      where: {
        fileHash: sha256,
        fileKey: null,
        status: { notIn: [batchStates.rejected, batchStates.importing] },
        NOT: { status: batchStates.cancelled, approvedAt: null },
      },
      orderBy: { createdAt: 'asc' },
      select: { id: true, createdAt: true, status: true },
    });
  }
}

/** An approved batch's state in words, for a person (never the enum name). */
const afterApproval: Partial<Record<string, string>> = {
  [batchStates.running]: 'it is being paid',
  [batchStates.paused]: 'it is paused',
  [batchStates.completed]: 'it finished',
  [batchStates.completedWithFailures]: 'it finished with failures',
  [batchStates.cancelled]: 'it was cancelled',
};

/** The earlier batch's rows by what happened to them: what a person must know before importing the file again. */
function earlierOutcome(earlier: { status: string }, rows: Array<{ status: BatchItemStatus; count: number; amount: string }>): string {
  const count = (statuses: readonly BatchItemStatus[]) =>
    rows.filter((r) => statuses.includes(r.status)).reduce((sum, r) => sum + r.count, 0);
  const sum = (statuses: readonly BatchItemStatus[]) =>
    fromMinorUnits(rows.filter((r) => statuses.includes(r.status)).reduce((total, r) => total + toMinorUnits(r.amount), 0n));
  const payable = rows.filter((r) => r.status !== rowStates.invalid).reduce((total, r) => total + r.count, 0);
  switch (earlier.status) {
    case batchStates.importing:
      return 'it is still being validated';
    case batchStates.validated:
      return 'it awaits approval: approve or discard that batch instead';
    case batchStates.rejected:
      return 'it was rejected and not approved: approve its valid rows or discard that batch instead';
    default: {
      const paid = count([rowStates.completed]);
      const moving = count(payingItemStatuses.filter((s) => s !== rowStates.completed));
      const parts = [`${paid} of ${payable} rows paid (${amountInWords(sum([rowStates.completed]), 'RUB')})`];
      if (moving > 0) parts.push(`${moving} being paid or awaiting review`);
      const unpaid = count([rowStates.failed, rowStates.expired, rowStates.cancelled]);
      if (unpaid > 0) parts.push(`${unpaid} failed, expired or cancelled`);
      return `${afterApproval[earlier.status] ?? 'it was approved'}: ${parts.join(', ')}`;
    }
  }
}

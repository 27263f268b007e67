import { sqlOf, type PrismaClient, type SqlQuery } from '../../db/database.ts';
import type { Batch } from '../../db/generated/client.ts';
import type { Logger } from '../../log/logger.ts';
import { batchStates } from '../states/batch-states.ts';
import { cancelImportedRows } from '../rows/sql/cancel-imported-rows.ts';
import { scrubCardData } from '../rows/sql/scrub-card-data.ts';
import { failureProblem } from './import-failure.ts';
import type { ImportState } from './import-state.ts';

/** The importer's database and log (batch-importer.ts). */
export interface EndDeps {
  prisma: PrismaClient;
  query: SqlQuery;
  logger: Logger;
}

/*
 * How an import that did not finish leaves its batch (batch-importer.ts): cancelled while
 * its file was read, or failed for any reason. Either way no row of it is ever paid and none
 * keeps card data; the batch never stays VALIDATING.
 */

/** A batch cancelled while its file was read: rows written before or after the cancel are never paid. */
export async function abandonImport(deps: EndDeps, id: string, state: ImportState): Promise<Batch> {
  await state.idle();
  await cancelImportedRows(deps.query, id);
  await scrubCardData(deps.query, { batchIds: [id], retentionDays: null });
  deps.logger.info({ batchId: id, rows: state.rows }, 'import stopped: the batch was cancelled or given up while its file was read');
  return deps.prisma.batch.findUniqueOrThrow({ where: { id } });
}

/**
 * Whatever went wrong, the batch ends REJECTED saying so, rather than VALIDATING for ever;
 * one cancelled (or given up by the sweep) meanwhile keeps that state.
 */
export async function failImport(deps: EndDeps, id: string, state: ImportState, error: unknown): Promise<Batch> {
  deps.logger.error({ err: error, batchId: id }, 'batch import failed');
  // A chunk still being written would land after the card data is dropped below.
  await state.idle();
  try {
    // One transaction, so a connection lost on the way runs both again (db/transaction-retry.ts), not the problem twice.
    const count = await deps.prisma.$transaction(async (tx) => {
      await tx.batchProblem.create({ data: { batchId: id, severity: 'error', ...failureProblem(error) } });
      const { count: rejected } = await tx.batch.updateMany({
        where: { id, status: batchStates.importing },
        data: {
          status: batchStates.rejected,
          fileKey: null,
          rowCount: state.rows,
          validCount: 0,
          invalidCount: state.rows,
          validatedAt: new Date(),
        },
      });
      return rejected;
    });
    if (count === 0) return await abandonImport(deps, id, state);
    // Nothing of a failed import is paid: no row keeps card data (the worker's sweep does it if this fails).
    await scrubCardData(sqlOf(deps.prisma), { batchIds: [id], retentionDays: null }).catch((scrub: unknown) =>
      deps.logger.warn({ err: scrub, batchId: id }, 'card data of a failed import not dropped yet; the sweep will'),
    );
    return await deps.prisma.batch.findUniqueOrThrow({ where: { id } });
  } catch (second) {
    // The database itself is gone: nothing more can be recorded here.
    deps.logger.error({ err: second, batchId: id }, 'failed import could not be recorded');
    throw error;
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PrismaClient } from '../db/database.ts';
import { discrepancyRows } from '../reconciliation/discrepancy-export.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import { chooseFormat, sendReport } from './batch-downloads.ts';
import { allowGetWithKey } from './file-route-guard.ts';

const DOWNLOAD = /^\/reconciliations\/([A-Za-z0-9]{1,16})\/discrepancies\.(csv|xlsx)$/;

export function isReconciliationDownload(path: string): boolean {
  return DOWNLOAD.test(path);
}

/** GET /reconciliations/{id}/discrepancies.csv (or .xlsx, ?format=, ?locale= as batch downloads), for any role. */
export async function handleReconciliationDownload(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: { prisma: PrismaClient; keys: ApiKeys },
): Promise<void> {
  if (!(await allowGetWithKey(req, res, deps.keys))) return;
  const [, runId, extension] = DOWNLOAD.exec(path)!;
  const chosen = chooseFormat(extension!, new URL(req.url ?? '/', 'http://gateway').searchParams);
  if ('error' in chosen) {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end(`${chosen.error}\n`);
    return;
  }
  const run = await deps.prisma.reconciliationRun.findUnique({
    where: { id: runId! },
    select: { id: true, periodFrom: true, periodTo: true },
  });
  if (run === null) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`No reconciliation run ${runId}.\n`);
    return;
  }
  const { format } = chosen;
  const suffix = format === 'excel' ? '-excel.csv' : format === 'xlsx' ? '.xlsx' : '.csv';
  await sendReport(
    res,
    discrepancyRows(deps.prisma, run.id),
    format,
    `reconciliation-${run.periodFrom}-${run.periodTo}-${run.id}${suffix}`,
  );
}

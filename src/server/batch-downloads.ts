import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportChunks, type ExportFormat, exportFormats, exportMediaTypes, reportRows } from '../batch/index.ts';
import type { PrismaClient } from '../db/database.ts';
import type { ApiKeys } from '../auth/api-keys.ts';
import { allowGetWithKey } from './file-route-guard.ts';

const DOWNLOAD = /^\/batches\/([A-Za-z0-9]{1,16})\/(results|problems)\.(csv|xlsx)$/;

export function isBatchDownload(path: string): boolean {
  return DOWNLOAD.test(path);
}

/**
 * `?format=csv|excel|xlsx`, else `.xlsx` in the path, else `?locale=`: a locale that writes
 * decimals with a comma (ru, de, fr …) gets the excel dialect, any other plain CSV.
 */
export function chooseFormat(extension: string, query: URLSearchParams): { format: ExportFormat } | { error: string } {
  const asked = query.get('format');
  if (asked !== null) {
    return (exportFormats as readonly string[]).includes(asked)
      ? { format: asked as ExportFormat }
      : { error: `format must be one of ${exportFormats.join(', ')}` };
  }
  if (extension === 'xlsx') return { format: 'xlsx' };
  const locale = query.get('locale');
  if (locale === null) return { format: 'csv' };
  try {
    return { format: new Intl.NumberFormat(locale).format(1.5).includes(',') ? 'excel' : 'csv' };
  } catch {
    return { error: `locale "${locale.slice(0, 35)}" is not a language tag such as ru or en-GB` };
  }
}

/**
 * GET /batches/{id}/results.csv and /problems.csv (or .xlsx), for any role, streamed as
 * they are read.
 */
export async function handleBatchDownload(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: { prisma: PrismaClient; keys: ApiKeys },
): Promise<void> {
  if (!(await allowGetWithKey(req, res, deps.keys))) return;
  const [, batchId, kind, extension] = DOWNLOAD.exec(path)!;
  const chosen = chooseFormat(extension!, new URL(req.url ?? '/', 'http://gateway').searchParams);
  if ('error' in chosen) {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end(`${chosen.error}\n`);
    return;
  }
  const batch = await deps.prisma.batch.findUnique({ where: { id: batchId! }, select: { id: true } });
  if (batch === null) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`No batch ${batchId}.\n`);
    return;
  }
  const { format } = chosen;
  await sendReport(res, reportRows(deps.prisma, batchId!, kind as 'results' | 'problems'), format, downloadName(batchId!, kind!, format));
}

/** A report streamed as it is read, in the chosen format, as an attachment named `fileName`. */
export async function sendReport(
  res: ServerResponse,
  rows: AsyncIterable<string[]>,
  format: ExportFormat,
  fileName: string,
): Promise<void> {
  res.writeHead(200, {
    'content-type': exportMediaTypes[format],
    'content-disposition': `attachment; filename="${fileName}"`,
  });
  // A BOM so that spreadsheets open the UTF-8 text as UTF-8 (the excel dialect has its own).
  if (format === 'csv') res.write('\uFEFF');
  for await (const chunk of exportChunks(rows, format)) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await drained(res);
  }
  res.end();
}

/** The client read what was written, or went away; no listener is left behind either way. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/** batch-b1a2-results.csv, batch-b1a2-results-excel.csv, batch-b1a2-results.xlsx */
export function downloadName(batchId: string, kind: string, format: ExportFormat): string {
  return `batch-${batchId}-${kind}${format === 'excel' ? '-excel.csv' : format === 'xlsx' ? '.xlsx' : '.csv'}`;
}

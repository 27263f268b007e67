import type { IncomingMessage, ServerResponse } from 'node:http';
import { csvChunks, problemRows, resultRows } from '../batch/batch-export.ts';
import type { PrismaClient } from '../db/database.ts';
import type { ApiKeys } from './api-keys.ts';

const DOWNLOAD = /^\/batches\/([A-Za-z0-9]{1,16})\/(results|problems)\.csv$/;

export function isBatchDownload(path: string): boolean {
  return DOWNLOAD.test(path);
}

/** GET /batches/{id}/results.csv and /problems.csv, for any role, streamed as they are read. */
export async function handleBatchDownload(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: { prisma: PrismaClient; keys: ApiKeys },
): Promise<void> {
  if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET' }).end();
    return;
  }
  if (deps.keys.authenticate(req.headers.authorization) === undefined) {
    res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' }).end('An API key is required.\n');
    return;
  }
  const [, batchId, kind] = DOWNLOAD.exec(path)!;
  const batch = await deps.prisma.batch.findUnique({ where: { id: batchId! }, select: { id: true } });
  if (batch === null) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`No batch ${batchId}.\n`);
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="batch-${batchId}-${kind}.csv"`,
  });
  // A BOM so that spreadsheets open the UTF-8 text as UTF-8.
  res.write('\uFEFF');
  const rows = kind === 'results' ? resultRows(deps.prisma, batchId!) : problemRows(deps.prisma, batchId!);
  for await (const chunk of csvChunks(rows)) {
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { parse } from 'csv-parse';
import { CliError, exitCodes } from '../cli-error.ts';
import type { CliContext } from '../context.ts';
import type { GatewayClient } from '../gateway/gateway-client.ts';
import { rowObjects } from '../json-output.ts';
import { readBatch, withGateway } from './gateway-commands.ts';

export type ExportFormat = 'csv' | 'excel' | 'xlsx';

export interface ExportOptions {
  output?: string;
  problems?: boolean;
  format?: ExportFormat;
  /** --format was given, not left at its default (it means nothing for --json rows on stdout). */
  formatGiven?: boolean;
}

/** The download route of a report, as the page links it (src/server/batch-downloads.ts). */
export const reportPath = (batchId: string, kind: 'results' | 'problems', format: ExportFormat) =>
  `/batches/${encodeURIComponent(batchId)}/${kind}.${format === 'xlsx' ? 'xlsx' : 'csv'}?format=${format}`;

/**
 * `payout batch export ID`: the gateway's own download, the bytes the page's link gives (a
 * CSV file starts with the BOM spreadsheets need to read UTF-8), streamed to -o or stdout.
 * On stdout a program reads it, so the BOM is left off there. --json rows are that CSV read
 * back into objects: the same columns and masked cells.
 */
export async function exportCommand(batchId: string, options: ExportOptions, context: CliContext): Promise<number> {
  const kind = options.problems ? 'problems' : 'results';
  const format = options.format ?? 'csv';
  if (context.json && options.output === undefined && options.formatGiven === true) {
    throw new CliError(
      'payout batch export: --format is the format of the file -o writes; with --json and no -o the rows are JSON',
      exitCodes.usage,
    );
  }
  return withGateway(context, async (client) => {
    if (context.json && options.output === undefined) {
      await context.result(
        { batchId, kind },
        { key: 'rows', items: rowObjects(csvRows(await body(client, reportPath(batchId, kind, 'csv'), batchId))) },
      );
      return exitCodes.ok;
    }
    const download = await body(client, reportPath(batchId, kind, format), batchId);
    if (options.output === undefined) {
      if (format === 'xlsx') await pipeline(download, process.stdout, { end: false });
      else await pipeline(download, withoutBom(), process.stdout, { end: false });
      return exitCodes.ok;
    }
    await pipeline(download, createWriteStream(options.output));
    context.out(`wrote ${options.output}`);
    if (context.json) await context.result({ batchId, kind, format, output: options.output, rows: await rowsOf(client, batchId, kind) });
    return exitCodes.ok;
  });
}

/** A download's body as a Node stream; a batch the gateway does not know is the CLI's own "no batch". */
export async function body(
  client: GatewayClient,
  path: string,
  subject: string,
  notFound = { message: `no batch ${subject}`, code: 'batch.not-found' },
): Promise<Readable> {
  try {
    const response = await client.download(path);
    return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  } catch (error) {
    if (error instanceof CliError && error.code === 'NOT_FOUND') throw new CliError(notFound.message, exitCodes.usage, notFound.code);
    throw error;
  }
}

/** The rows of a downloaded CSV, header first, as the export wrote them before making them safe for a spreadsheet. */
export async function* csvRows(csv: Readable): AsyncGenerator<string[]> {
  for await (const row of csv.pipe(parse({ bom: true, relax_column_count: true })) as AsyncIterable<string[]>) {
    // The export puts an apostrophe before a cell a spreadsheet would run as a formula; JSON runs nothing.
    yield row.map((cell) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell));
  }
}

function withoutBom(): Transform {
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const rest = first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
      first = false;
      done(null, rest);
    },
  });
}

/** Rows written, for the --json note of an export to a file: the batch's rows, or its problems. */
async function rowsOf(client: GatewayClient, batchId: string, kind: 'results' | 'problems'): Promise<number> {
  if (kind === 'results') return (await readBatch(client, batchId)).rowCount;
  const { batch } = await client.graphql<{ batch: { problems: unknown[] } | null }>(
    'query CliProblemCount($id: ID!) { batch(id: $id) { problems(limit: 1000) { code } } }',
    { id: batchId },
  );
  return batch?.problems.length ?? 0;
}

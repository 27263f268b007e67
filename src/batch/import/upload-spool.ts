import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { redactCardNumbers } from '../../log/card-numbers.ts';
import type { FileProblem } from './read/csv-reader.ts';
import { FileKeyHash } from './file-key.ts';

/** An upload copied to a private temp file, with what is known of it before any row is read. */
export interface SpooledUpload {
  /** Bytes received. */
  bytes: number;
  /** sha256 of the bytes as received (of those read, when reading stopped early). */
  sha256: string;
  /** sha256 of the normalised content (see FileKeyHash); only for a file read whole. */
  key: string | undefined;
  /** Why the file was not read whole: over the size limit, or the upload broke off. */
  problem?: FileProblem;
  /** The file again, from the temp file. */
  read(): ReadStream;
  remove(): Promise<void>;
}

/**
 * Reads an upload once, to a temp file, hashing as it goes: the duplicate check needs the
 * hash of the whole file before the batch row is written, and the rows are then read from
 * disk, so memory stays flat however large the file. The file holds card numbers: it is
 * readable by this user only, and removed by the caller.
 */
export async function spoolUpload(source: AsyncIterable<Uint8Array>, options: { maxBytes: number }): Promise<SpooledUpload> {
  const dir = await mkdtemp(join(tmpdir(), 'payout-upload-'));
  const path = join(dir, 'upload.csv');
  const raw = createHash('sha256');
  const normalised = new FileKeyHash();
  let bytes = 0;
  let problem: FileProblem | undefined;
  let whole = false;
  const iterator = source[Symbol.asyncIterator]();
  try {
    const file = await open(path, 'wx', 0o600);
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) {
          whole = true;
          break;
        }
        bytes += next.value.byteLength;
        if (bytes > options.maxBytes) {
          problem = { line: null, column: null, code: 'file.too-large', message: `the file is larger than ${options.maxBytes} bytes` };
          break;
        }
        raw.update(next.value);
        normalised.update(next.value);
        await file.write(next.value);
      }
    } finally {
      await file.close();
    }
  } catch (error) {
    const reason = redactCardNumbers(error instanceof Error ? error.message : String(error)).slice(0, 200);
    problem = {
      line: null,
      column: null,
      code: 'import.failed',
      message: `the file could not be received to the end (${reason}); upload it again`,
    };
  }
  if (!whole) {
    // The rest is not wanted; let the source free its connection or file.
    try {
      await iterator.return?.();
    } catch {
      // It failed already.
    }
  }
  return {
    bytes,
    sha256: raw.digest('hex'),
    key: whole ? normalised.digest() : undefined,
    ...(problem === undefined ? {} : { problem }),
    read: () => createReadStream(path, { highWaterMark: 64 * 1024 }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A file part of a multipart upload, received to a private temp file (see spoolPart). */
export interface SpooledPart {
  path: string;
  bytes: number;
  remove(): Promise<void>;
}

/**
 * Writes one part of an upload to a private temp file as it arrives, so an upload costs
 * disk, not memory, while the request is received; what reads it later opens it as a
 * disk-backed Blob. The caller removes it (after the import, and on every error).
 */
export async function spoolPart(source: Readable): Promise<SpooledPart> {
  const dir = await mkdtemp(join(tmpdir(), 'payout-upload-'));
  const path = join(dir, 'part');
  const remove = () => rm(dir, { recursive: true, force: true });
  let bytes = 0;
  try {
    await pipeline(
      source,
      async function* count(chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          bytes += chunk.length;
          yield chunk;
        }
      },
      createWriteStream(path, { flags: 'wx', mode: 0o600 }),
    );
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, bytes, remove };
}

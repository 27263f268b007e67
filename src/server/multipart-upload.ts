import { openAsBlob } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform } from 'node:stream';
import busboy from 'busboy';
import { type SpooledPart, spoolPart } from '../batch/index.ts';
import type { GatewayYoga } from '../graphql/yoga.ts';

export interface UploadLimits {
  /** The whole multipart body: BATCH_MAX_FILE_BYTES plus the envelope (operations, map, part headers). */
  bodyBytes: number;
  /** `operations` and `map`: as much as a GraphQL request without files may carry. */
  fieldBytes: number;
}

/** importBatch takes one file; a few more leave room for other upload fields without inviting a flood. */
const MAX_FILES = 10;

/** A GraphQL multipart request (POST multipart/form-data), which handleMultipartUpload serves. */
export function isMultipartUpload(req: IncomingMessage): boolean {
  return req.method === 'POST' && /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');
}

/** A refusal before yoga sees the request: status, code and message, as yoga's own errors are shaped. */
class UploadRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'UploadRefusal';
  }
}

const badRequest = (message: string) => new UploadRefusal(400, 'BAD_MULTIPART_REQUEST', message);

interface ReceivedPart {
  part: SpooledPart;
  fileName: string;
  mimeType: string;
}

/**
 * A GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec)
 * received as a stream: yoga's own multipart parsing collects every file in memory, so
 * file parts are written to private temp files as they arrive instead (busboy), the body
 * is counted against its limit as it is read (413 however it is sent), and yoga gets a
 * request whose form data is already parsed, its files disk-backed Blobs that the
 * importer reads as streams. The temp files are removed once the response is sent, or at
 * the first error.
 */
export async function handleMultipartUpload(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { yoga: GatewayYoga; limits: UploadLimits },
): Promise<void> {
  const received = new Map<string, ReceivedPart>();
  const removeAll = () => Promise.all([...received.values()].map(({ part }) => part.remove().catch(() => {})));
  let form: FormData;
  try {
    form = await receive(req, deps.limits, received);
  } catch (error) {
    await removeAll();
    if (!(error instanceof UploadRefusal)) throw error;
    // The rest of the body is not read: the connection cannot carry another request.
    res.setHeader('connection', 'close');
    return sendJson(res, error.status, { errors: [{ message: error.message, extensions: { code: error.code, ...error.extensions } }] });
  }
  try {
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const request = parsedRequest(deps.yoga, req, form, aborted.signal);
    const response = await deps.yoga.handleRequest(request, { req, res });
    await sendResponse(res, response);
  } finally {
    await removeAll();
  }
}

/** Reads the body: the fields in order, each file to disk; resolves with the whole form once the body has ended. */
function receive(req: IncomingMessage, limits: UploadLimits, received: Map<string, ReceivedPart>): Promise<FormData> {
  return new Promise<FormData>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // Browsers and curl send file names as raw UTF-8 (busboy's default reads them as latin1).
        defParamCharset: 'utf8',
        limits: { fieldSize: limits.fieldBytes, files: MAX_FILES, fields: 2, parts: MAX_FILES + 2 },
      });
    } catch (error) {
      // busboy throws for a content type without a boundary.
      reject(badRequest(`The multipart body cannot be read: ${(error as Error).message}.`));
      return;
    }
    let settled = false;
    let read = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        read += chunk.length;
        if (read > limits.bodyBytes) {
          done(
            new UploadRefusal(
              413,
              'PAYLOAD_TOO_LARGE',
              `Request body over ${limits.bodyBytes} bytes, the limit for an upload (BATCH_MAX_FILE_BYTES plus 64 KiB for the envelope).`,
              {
                limitBytes: limits.bodyBytes,
              },
            ),
          );
        } else done(null, chunk);
      },
    });
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(counter);
      counter.unpipe(parser);
      counter.destroy();
      parser.removeAllListeners('close');
      parser.destroy();
      // Parts still being written end with an error of their own; they are removed by the caller.
      reject(error instanceof UploadRefusal ? error : badRequest(`The multipart body cannot be read: ${(error as Error).message}.`));
    };

    let operations: string | undefined;
    let map: Map<string, string[]> | undefined;
    const writes: Promise<void>[] = [];

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        return fail(
          new UploadRefusal(413, 'PAYLOAD_TOO_LARGE', `Multipart field "${name}" over ${limits.fieldBytes} bytes.`, {
            limitBytes: limits.fieldBytes,
          }),
        );
      }
      if (name === 'operations') {
        if (operations !== undefined) return fail(badRequest('Multipart field "operations" is sent twice.'));
        operations = value;
      } else if (name === 'map') {
        if (operations === undefined)
          return fail(badRequest('Multipart field "map" must come after "operations" (GraphQL multipart request spec).'));
        if (map !== undefined) return fail(badRequest('Multipart field "map" is sent twice.'));
        try {
          map = parseMap(value);
        } catch (error) {
          return fail(error);
        }
      } else return fail(badRequest(`Unexpected multipart field "${name}": only "operations", "map" and the files it names.`));
    });

    parser.on('file', (name, stream, info) => {
      // A refusal ends the parser, which errors the part being read: nothing more to do with it.
      stream.on('error', () => {});
      if (map === undefined) {
        stream.resume();
        return fail(badRequest('Multipart field "map" must come before the files (GraphQL multipart request spec).'));
      }
      if (!map.has(name) || received.has(name)) {
        // The spec lets a server ignore files the map does not name.
        stream.resume();
        return;
      }
      writes.push(
        spoolPart(stream).then(
          (part) => {
            received.set(name, { part, fileName: info.filename ?? name, mimeType: info.mimeType });
            // Refused meanwhile: the caller has removed what it knew of; this one is removed here.
            if (settled) void part.remove();
          },
          (error: unknown) => fail(error),
        ),
      );
    });
    parser.on('partsLimit', () => fail(badRequest(`A multipart request here has at most ${MAX_FILES} files.`)));
    parser.on('filesLimit', () => fail(badRequest(`A multipart request here has at most ${MAX_FILES} files.`)));
    parser.on('fieldsLimit', () => fail(badRequest('Only "operations" and "map" may be sent as fields.')));
    parser.on('error', fail);
    counter.on('error', fail);
    req.on('error', fail);
    req.on('aborted', () => fail(badRequest('The upload broke off before its end.')));
    parser.on('close', () => {
      void Promise.all(writes).then(async () => {
        if (settled) return;
        try {
          const form = await buildForm(operations, map, received);
          settled = true;
          resolve(form);
        } catch (error) {
          fail(error);
        }
      });
    });
    req.pipe(counter).pipe(parser);
  });
}

function parseMap(text: string): Map<string, string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('Multipart field "map" must be a JSON object of file field names to paths in "operations".');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('Multipart field "map" must be a JSON object of file field names to paths in "operations".');
  }
  const map = new Map<string, string[]>();
  for (const [name, paths] of Object.entries(parsed)) {
    if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string')) {
      throw badRequest(`Multipart field "map": "${name}" must name a list of paths such as ["variables.file"].`);
    }
    map.set(name, paths as string[]);
  }
  return map;
}

/** The form yoga's multipart parser reads: the two fields as sent, each file a Blob over its temp file. */
async function buildForm(
  operations: string | undefined,
  map: Map<string, string[]> | undefined,
  received: Map<string, ReceivedPart>,
): Promise<FormData> {
  if (operations === undefined) throw badRequest('Multipart field "operations" is missing (GraphQL multipart request spec).');
  if (map === undefined)
    throw badRequest('Multipart field "map" is missing: it says which variable each file is (GraphQL multipart request spec).');
  const missing = [...map.keys()].filter((name) => !received.has(name));
  if (missing.length > 0) {
    throw badRequest(`The map names file ${missing.map((name) => `"${name}"`).join(', ')} but the request has no such file part.`);
  }
  const form = new FormData();
  form.set('operations', operations);
  form.set('map', JSON.stringify(Object.fromEntries(map)));
  for (const [name, { part, fileName, mimeType }] of received) {
    // Blob parts are referenced, not copied: the File reads the temp file when streamed.
    form.set(name, new File([await openAsBlob(part.path)], fileName, { type: mimeType }));
  }
  return form;
}

/**
 * The request as yoga would have built it, without a body: its form data is the one
 * received above (yoga reads uploads through `request.formData()`). Having no body, it is
 * not counted again by the body limits plugin, which counts bodies as they are read.
 */
function parsedRequest(yoga: GatewayYoga, req: IncomingMessage, form: FormData, signal: AbortSignal): Request {
  const headers = new yoga.fetchAPI.Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const request = new yoga.fetchAPI.Request(`http://${req.headers.host ?? 'gateway'}${req.url ?? '/graphql'}`, {
    method: 'POST',
    headers,
    signal,
  });
  Object.defineProperty(request, 'formData', { value: () => Promise.resolve(form) });
  return request;
}

async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  response.headers.forEach((value, name) => res.setHeader(name, value));
  res.writeHead(response.status);
  if (response.body !== null) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
  }
  res.end();
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

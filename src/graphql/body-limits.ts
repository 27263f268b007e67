import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** GraphQL documents and variables; file uploads have their own limit. */
export const MAX_GRAPHQL_BODY_BYTES = 1024 * 1024;

export interface BodyLimits {
  /** JSON, GraphQL strings and forms. */
  graphqlBytes: number;
  /** multipart/form-data: the file plus its envelope. */
  uploadBytes: number;
}

/**
 * One cap per kind of body, counted on the bytes as they are read, so a chunked body or
 * one with a false Content-Length meets the same limit as an honest one. It stands in for
 * yoga's maxRequestBodySize, a single number for every kind (turned off in yoga.ts).
 */
export function useBodyLimits(limits: BodyLimits): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const upload = (request.headers.get('content-type') ?? '').toLowerCase().startsWith('multipart/');
      const limit = upload ? limits.uploadBytes : limits.graphqlBytes;
      const kind = upload ? 'an upload (BATCH_MAX_FILE_BYTES plus 64 KiB for the envelope)' : 'a GraphQL request without files';
      const declared = request.headers.get('content-length');
      const honest = declared !== null && /^\d+$/.test(declared);
      if (honest && Number(declared) > limit) throw tooLarge(limit, kind);
      // Node's HTTP parser reads exactly Content-Length bytes of a body that is not chunked
      // (it refuses both headers at once), so the check above is the limit. Counting costs a
      // stream and a Request per request (a fifth of the facade's CPU, docs/internals/benchmarks/facade.md).
      if (honest && request.headers.get('transfer-encoding') === null) return;
      if (requestParser === undefined || request.body === null) return;
      const parse = requestParser;
      setRequestParser(async (req) => {
        const counted = limitBody(req, limit, fetchAPI);
        try {
          return await parse(counted.request);
        } catch (error) {
          // The multipart parser turns a broken stream into a 400 "invalid multipart data".
          if (counted.over()) throw tooLarge(limit, kind);
          throw error;
        }
      });
    },
  };
}

function limitBody(
  request: Request,
  limit: number,
  fetchAPI: { Request: typeof Request; TransformStream: typeof TransformStream },
): { request: Request; over: () => boolean } {
  // A native stream must be piped through a native TransformStream, a ponyfilled one through the ponyfill.
  const Transform = request.body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  let read = 0;
  const counted = request.body!.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > limit) controller.error(new RangeError(`body over ${limit} bytes`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return {
    request: new fetchAPI.Request(request.url, {
      method: request.method,
      headers: request.headers,
      signal: request.signal,
      body: counted,
      duplex: 'half',
    } as RequestInit),
    over: () => read > limit,
  };
}

function tooLarge(limit: number, kind: string): GraphQLError {
  return new GraphQLError(`Request body over ${limit} bytes, the limit for ${kind}.`, {
    extensions: { code: 'PAYLOAD_TOO_LARGE', limitBytes: limit, http: { status: 413 } },
  });
}

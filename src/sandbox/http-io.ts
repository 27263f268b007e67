import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { SandboxApiError } from './api-error.ts';

// How the sandbox reads requests and writes answers, the faulty ones included (a proxy's
// page, a body cut off half-way); server.ts holds the routes.

export const INSPECTION_PREFIX = '/_sandbox/';
const MAX_BODY_BYTES = 1024 * 1024;

export function noRoute(req: IncomingMessage, parts: string[]): SandboxApiError {
  return new SandboxApiError('validation.error', `no sandbox route ${req.method} ${INSPECTION_PREFIX}${parts.join('/')}`, undefined, {
    httpStatus: 404,
  });
}

export function parseOrRefuse<T>(schema: z.ZodType<T>, text: string, what: string): T {
  const parsed = schema.safeParse(parseJsonOrUndefined(text));
  if (parsed.success) return parsed.data;
  throw new SandboxApiError('validation.error', `invalid ${what}`, {
    body: parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`),
  });
}

/** What a reverse proxy in front of the API answers when the API behind it fails or times out. */
export function sendProxyPage(res: ServerResponse, status: 502 | 504): void {
  const title = status === 502 ? '502 Bad Gateway' : '504 Gateway Time-out';
  res.writeHead(status, { 'content-type': 'text/html' }).end(`<html><body><h1>${title}</h1></body></html>`);
}

/**
 * Promises the whole body in Content-Length, sends half, then ends the connection: the
 * client has its status and headers but the body stream fails before it is complete.
 * The socket is ended (FIN) only once the half is flushed, never reset, so the bytes
 * sent always arrive and the client cannot mistake it for a dropped connection.
 */
export function sendTruncated(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(bytes.length) });
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.end());
}

export function send(res: ServerResponse, status: number, body: unknown, retryAfterSeconds?: number): void {
  if (retryAfterSeconds !== undefined) res.setHeader('retry-after', String(retryAfterSeconds));
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      throw new SandboxApiError('validation.error', 'the body is larger than 1 MiB', { body: ['too large'] }, { httpStatus: 413 });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

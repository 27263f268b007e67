import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLParams } from 'graphql-yoga';
import { MAX_GRAPHQL_BODY_BYTES } from '../body-limits.ts';
import type { GatewayYoga } from '../yoga.ts';

/**
 * The common GraphQL request, a JSON POST with a Content-Length, served without yoga's HTTP
 * adapter (issue 41, docs/internals/benchmarks/facade.md): the adapter's Request built from
 * the node request, its body stream, the request hooks (CORS, health check, GraphiQL, the
 * request parsers, CSRF, body limits) and its response writer cost more CPU than the rest of
 * a `balance` request. From the parameters on it is yoga's own path: `getResultForParams`
 * (every onParams hook: operation metrics, persisted operations, the parameter checks; then
 * parse and validation through the cache with the query limits, context, auth, execution,
 * masked errors) and every onResultProcess hook with yoga's result processors, which decide
 * the status, headers and body as they would have.
 *
 * Only a request whose headers make yoga's skipped hooks no-ops comes here (see
 * `takesJsonPost`); a body that is not a plain `{ query, operationName, variables }`
 * object, or parameters an onParams hook refuses, go to yoga whole, with the bytes read.
 */
export function takesJsonPost(req: IncomingMessage): boolean {
  const headers = req.headers;
  if (req.method !== 'POST') return false;
  // CORS (yoga answers an Origin with headers of its own) and the multipart or SSE answers stay yoga's.
  if (headers.origin !== undefined || headers['transfer-encoding'] !== undefined) return false;
  if (!isJsonContentType(headers['content-type'])) return false;
  const accept = headers.accept;
  if (accept !== undefined && (accept.includes('text/event-stream') || accept.includes('multipart/'))) return false;
  // Honest and within the limit: Node's parser reads exactly these bytes (graphql/body-limits.ts says why).
  const length = headers['content-length'];
  return length !== undefined && /^\d+$/.test(length) && Number(length) <= MAX_GRAPHQL_BODY_BYTES;
}

/** yoga's test for its JSON parser (isPOSTJsonRequest): the first type named, exactly, or with parameters. */
function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const first = contentType.split(',')[0]!;
  return first === 'application/json' || first.startsWith('application/json;');
}

type Result = Awaited<ReturnType<GatewayYoga['getResultForParams']>>;

/** The parts of yoga's server not in its types: its result hooks, as its own `handle` runs them. */
interface YogaInternals {
  onResultProcessHooks: Array<(payload: Record<string, unknown>) => unknown>;
}

export async function handleJsonPost(yoga: GatewayYoga, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const url = `http://${req.headers.host ?? 'gateway'}${req.url ?? '/graphql'}`;
  const params = plainParams(body);
  if (params === undefined) return sendResponse(res, await yoga.handleRequest(requestWithBody(yoga, req, url, body), { req, res }));
  // Headers only: the body is parsed already, and no hook from here on reads it.
  const request = new yoga.fetchAPI.Request(url, { method: 'POST', headers: req.headers as Record<string, string> });
  // The adapter's own waitUntil: its disposal waits for what a hook left running.
  const serverContext = { req, res, waitUntil: yoga.waitUntil };
  let result: Result;
  try {
    result = await yoga.getResultForParams({ params, request }, serverContext);
  } catch {
    // Thrown only by an onParams hook (execution errors come back as a result): nothing ran
    // yet, so yoga answers the same bytes in its own words (its status, its masking).
    return sendResponse(res, await yoga.handleRequest(requestWithBody(yoga, req, url, body), { req, res }));
  }
  await sendResponse(res, await processResult(yoga, request, result, serverContext));
}

/** yoga's processResult, which it does not export: the hooks in order, then the processor they chose. */
async function processResult(yoga: GatewayYoga, request: Request, result: Result, serverContext: object): Promise<Response> {
  let processor: ((result: Result, fetchAPI: unknown, mediaType: string) => Response | Promise<Response>) | undefined;
  let mediaType = '*/*';
  const acceptableMediaTypes: string[] = [];
  // Made once, not per hook: a closure per hook per request shows in the profile.
  const setResult = (next: Result) => (result = next);
  const setResultProcessor = (next: typeof processor, nextMediaType: string) => {
    processor = next;
    mediaType = nextMediaType;
  };
  for (const hook of (yoga as unknown as YogaInternals).onResultProcessHooks) {
    const done = hook({ request, acceptableMediaTypes, result, setResult, resultProcessor: processor, setResultProcessor, serverContext });
    // yoga's hooks here are synchronous; one that is not is waited for, as yoga's iterateAsync does.
    if (typeof (done as PromiseLike<unknown> | undefined)?.then === 'function') await done;
  }
  if (processor === undefined) {
    return new yoga.fetchAPI.Response(null, {
      status: 406,
      statusText: 'Not Acceptable',
      headers: { accept: acceptableMediaTypes.join('; charset=utf-8, ') },
    });
  }
  return processor(result, yoga.fetchAPI, mediaType);
}

/** `{ query, operationName?, variables? }` with the types yoga's checks accept; anything else (extensions, documentId, a batch) is yoga's. */
function plainParams(body: Buffer): GraphQLParams | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const { query, operationName, variables, ...rest } = parsed as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof query !== 'string') return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  return { query, operationName: operationName ?? undefined, variables: (variables ?? undefined) as Record<string, unknown> | undefined };
}

function requestWithBody(yoga: GatewayYoga, req: IncomingMessage, url: string, body: Buffer): Request {
  return new yoga.fetchAPI.Request(url, { method: 'POST', headers: req.headers as Record<string, string>, body: new Uint8Array(body) });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** What whatwg-node's sendNodeResponse does for a body held whole; a streamed one is written as it comes. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, response.statusText, headers);
  if (response.body === null) return void res.end();
  const text = (response as unknown as { bodyType?: string; bodyInit?: unknown }).bodyType === 'String';
  if (text) return void res.end((response as unknown as { bodyInit: string }).bodyInit);
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

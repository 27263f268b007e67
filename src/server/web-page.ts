import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/**
 * The clerk's page (web/, built by `npm run build:web` into dist/web/) served at `/`.
 * Only files that exist in the build are served, from a table made once: no path from a
 * request ever reaches the file system. Hashed assets are cached for a year; the page
 * itself is revalidated on every load so a new build is picked up at once.
 */

/** No inline script or style, nothing from another origin; the page talks only to this gateway. */
export const WEB_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface WebFile {
  body: Buffer;
  /** The same, gzipped once when loaded, for text files (the script is a third of its size). */
  gzipped: Buffer | undefined;
  type: string;
  etag: string;
  /** Vite puts content-hashed names under assets/: they never change, so they may be kept. */
  immutable: boolean;
  /** The page as served when keys are configured, and with single sign-on too (html only): it says so, see KEYS_META. */
  keyed?: WebFile;
  signIn?: WebFile;
}

/**
 * Told in the page itself whether the gateway wants a key, so that without a stored key it
 * shows the sign-in form at once: asking the gateway would be a request refused with 401,
 * which the browser logs as an error on every load.
 */
export const KEYS_META = '<meta name="payout-gateway-keys" content="required" />';
/** And that it offers single sign-on (/auth/sign-in): the page shows its button first. */
export const SIGN_IN_META = '<meta name="payout-gateway-sign-in" content="/auth/sign-in" />';

/** Who the page is served to: key-less local use, keys only, or keys and single sign-on. */
export type PageAccess = 'anonymous' | 'keys' | 'sign-in';

function webFile(url: string, body: Buffer, type: string): WebFile {
  const gzipped = /^(text\/|image\/svg|application\/json)/.test(type) ? gzipSync(body, { level: 9 }) : undefined;
  return {
    body,
    gzipped,
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    immutable: url.startsWith('/assets/'),
  };
}

let files: Promise<Map<string, WebFile>> | undefined;

/** dist/web of this package, found from this module whether it runs from src/ (tsx) or dist/ (a chunk). */
export function webRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return join(dir, 'dist', 'web');
}

async function load(root: string): Promise<Map<string, WebFile>> {
  const table = new Map<string, WebFile>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(path);
        continue;
      }
      const type = CONTENT_TYPES[extname(entry.name)];
      if (type === undefined) continue;
      const body = await readFile(path);
      const url = `/${relative(root, path).split(sep).join('/')}`;
      const file = webFile(url, body, type);
      if (type.startsWith('text/html')) {
        const html = body.toString('utf8');
        file.keyed = webFile(url, Buffer.from(html.replace('</head>', `${KEYS_META}</head>`)), type);
        file.signIn = webFile(url, Buffer.from(html.replace('</head>', `${KEYS_META}${SIGN_IN_META}</head>`)), type);
      }
      table.set(url, file);
    }
  };
  await walk(root);
  return table;
}

async function webFiles(): Promise<Map<string, WebFile> | undefined> {
  files ??= load(webRoot());
  try {
    return await files;
  } catch {
    // Not built (yet): look again on the next request rather than remembering the failure.
    files = undefined;
    return undefined;
  }
}

export function isWebPage(path: string): boolean {
  return path === '/' || path === '/index.html' || path === '/favicon.svg' || path.startsWith('/assets/');
}

export async function serveWebPage(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  options: { access: PageAccess },
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  const table = await webFiles();
  const built = table?.get(path === '/' ? '/index.html' : path);
  const file = options.access === 'anonymous' ? built : ((options.access === 'keys' ? built?.keyed : built?.signIn) ?? built);
  if (table === undefined || file === undefined) {
    const missing = table === undefined || path === '/' || path === '/index.html';
    res
      .writeHead(missing ? 503 : 404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
      .end(missing ? 'The web page is not built: run `npm run build` (npm install does it), then reload.\n' : 'Not found.\n');
    return;
  }
  const gzip = file.gzipped !== undefined && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? file.gzipped! : file.body;
  const headers: Record<string, string> = {
    'content-type': file.type,
    'content-length': String(body.length),
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    ...(file.gzipped === undefined ? {} : { vary: 'Accept-Encoding' }),
    etag: file.etag,
    'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  if (file.type.startsWith('text/html')) {
    headers['content-security-policy'] = WEB_PAGE_CSP;
    headers['x-frame-options'] = 'DENY';
  }
  if (req.headers['if-none-match'] === file.etag) {
    delete headers['content-length'];
    res.writeHead(304, headers).end();
    return;
  }
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKeys } from '../auth/api-keys.ts';
import { credentialsOf } from '../auth/credentials.ts';

/**
 * The guard of the file routes (batch downloads, templates): GET only, with any API key
 * (none in key-less local mode). Returns false when it has already answered.
 */
export async function allowGetWithKey(req: IncomingMessage, res: ServerResponse, keys: ApiKeys): Promise<boolean> {
  if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET' }).end();
    return false;
  }
  if ((await keys.authenticate(credentialsOf(req.headers, req.method))) === undefined) {
    res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' }).end('An API key is required.\n');
    return false;
  }
  return true;
}

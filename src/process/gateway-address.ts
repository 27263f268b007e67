import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDirHolder, type LockHolder } from '../db/data-dir-lock.ts';
import type { Logger } from '../log/logger.ts';

/**
 * Where the gateway holding an embedded database answers: written into its DATA_DIR once it
 * listens, removed when it stops. The embedded database is one process's at a time, so the
 * CLI in another terminal must find that process's API, on whatever PORT it was started with
 * (`PORT=4310 npm start`), instead of failing on the lock (issue 38, decision 20). Trusted
 * only while the process named in it holds the directory's lock: a file left by a killed
 * gateway names a pid that no longer holds it. It holds an address, never a key.
 */
export const ADDRESS_FILE = 'gateway.json';

export interface GatewayAddress {
  url: string;
  pid: number;
}

/** Written whole (rename), so a reader never sees half of it. */
export function publishGatewayAddress(dataDir: string, url: string): () => void {
  const file = join(dataDir, ADDRESS_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ url, pid: process.pid } satisfies GatewayAddress)}\n`, { mode: 0o644 });
  renameSync(temp, file);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    // Only our own: a gateway started after ours (ours stopped, the lock taken over) wrote its own.
    if (readAddress(file)?.pid === process.pid) {
      try {
        unlinkSync(file);
      } catch {
        // Already gone.
      }
    }
  };
}

/**
 * Published only by the process that holds DATA_DIR's embedded database (not on PostgreSQL, not
 * in memory): that lock is what makes the address trustworthy. Never stops a start: without
 * the file the CLI still finds a gateway on its own PORT.
 */
export function publishIfHolder(dataDir: string, url: string, logger: Logger): () => void {
  if (dataDirHolder(dataDir)?.pid !== process.pid) return () => {};
  try {
    return publishGatewayAddress(dataDir, url);
  } catch (error) {
    logger.warn({ err: error, dataDir }, 'could not write gateway.json: the payout CLI finds this gateway only on its own PORT');
    return () => {};
  }
}

function readAddress(file: string): GatewayAddress | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<GatewayAddress>;
    return typeof parsed.url === 'string' && typeof parsed.pid === 'number' ? { url: parsed.url, pid: parsed.pid } : undefined;
  } catch {
    return undefined;
  }
}

/** Who holds the embedded database in `dataDir` now, and the address its gateway published (none: not a gateway, or not listening yet). */
export function embeddedHolder(dataDir: string): { holder: LockHolder; url: string | undefined } | undefined {
  const holder = dataDirHolder(dataDir);
  if (holder === undefined) return undefined;
  const address = readAddress(join(dataDir, ADDRESS_FILE));
  return { holder, url: address?.pid === holder.pid ? address.url : undefined };
}

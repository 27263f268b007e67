import { createHash } from 'node:crypto';
import type { Role } from '../config/env.ts';

export interface Caller {
  role: Role;
  /** Safe to log and store: a fingerprint of the key, or "anonymous". */
  caller: string;
}

const fingerprint = (key: string) => `key:${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;

/**
 * GATEWAY_API_KEYS as a lookup by hash, so keys are not kept or compared as plain
 * strings. With no keys the gateway serves anonymous local use as admin.
 */
export class ApiKeys {
  private readonly byHash = new Map<string, Caller>();

  constructor(keys: Map<string, Role>) {
    for (const [key, role] of keys) this.byHash.set(hash(key), { role, caller: fingerprint(key) });
  }

  get anonymous(): boolean {
    return this.byHash.size === 0;
  }

  /** The caller for an Authorization header, or undefined when it names no known key. */
  authenticate(authorization: string | null | undefined): Caller | undefined {
    if (this.anonymous) return { role: 'admin', caller: 'anonymous' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match === null ? undefined : this.byHash.get(hash(match[1]!));
  }
}

function hash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

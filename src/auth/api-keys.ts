import { createHash, createHmac } from 'node:crypto';
import { entryLabel, type ApiKeyEntry } from '../config/api-key-entries.ts';
import { ConfigError } from '../config/config-error.ts';
import type { GatewayConfig, Role } from '../config/env.ts';
import { loadDataKeyring, type DataKey } from '../crypto/data-keys.ts';
import type { Caller } from './caller.ts';
import type { KeyRecords } from './key-records.ts';
import type { Credentials } from './credentials.ts';
import type { CompanyIdentity } from './oidc/company-identity.ts';

/**
 * GATEWAY_API_KEYS as a lookup by hash, so keys are not kept or compared as plain
 * strings. With no keys the gateway serves anonymous local use as admin.
 */
export class ApiKeys {
  private readonly byHash = new Map<string, Caller>();
  /** Keys admins created (key-records.ts), looked up when a presented key is none of the environment's. */
  private records: KeyRecords | undefined;
  /** The company's identity provider: page sessions and bearer tokens (oidc/company-identity.ts). */
  private company: CompanyIdentity | undefined;
  /** Why the last token was refused, per request: said to its sender. */
  private readonly refusals = new WeakMap<Credentials, string>();

  /** `identitySecret` fingerprints unnamed keys; needed only when some key has no name. */
  constructor(entries: ApiKeyEntry[], identitySecret?: Buffer) {
    const named = new Map(entries.filter((e) => e.name !== undefined).map((e) => [`key:${e.name}`, e]));
    for (const entry of entries) {
      let caller: string;
      if (entry.name !== undefined) caller = `key:${entry.name}`;
      else {
        if (identitySecret === undefined) throw new Error('unnamed API keys need the identity secret');
        caller = `key:${createHmac('sha256', identitySecret).update(entry.key).digest('hex').slice(0, 12)}`;
        // Only a name chosen to copy a shown fingerprint could: two keys would be one person.
        const twin = named.get(caller);
        if (twin !== undefined) {
          throw new ConfigError([
            {
              variable: 'GATEWAY_API_KEYS',
              message: `${entryLabel(twin)} is named like the fingerprint of ${entryLabel(entry)}; choose another name`,
            },
          ]);
        }
      }
      this.byHash.set(hash(entry.key), { role: entry.role, caller });
    }
  }

  /** Takes the identity provider's sessions and tokens: the gateway is then no longer anonymous. Before withRecords. */
  withCompanyIdentity(company: CompanyIdentity | undefined): this {
    this.company = company;
    return this;
  }

  /** Looks up keys admins created too; a gateway in anonymous local use takes none. */
  withRecords(records: KeyRecords): this {
    if (!this.anonymous) this.records = records;
    return this;
  }

  get companyIdentity(): CompanyIdentity | undefined {
    return this.company;
  }

  /** The keys admins create, or undefined in anonymous local use (which takes no keys). */
  get keyRecords(): KeyRecords | undefined {
    return this.records;
  }

  /** The identities the environment's keys are (`key:NAME` or a fingerprint): a created key may not take one. */
  get identities(): ReadonlySet<string> {
    return new Set([...this.byHash.values()].map((caller) => caller.caller));
  }

  get anonymous(): boolean {
    return this.byHash.size === 0 && this.company === undefined;
  }

  /**
   * The caller of a request (credentialsOf), or undefined when it names no known key, token or
   * session. Without keys, only a request with no header is the anonymous admin: a key sent to a
   * key-less gateway is a mistake (the wrong gateway, a key meant for another), and accepting it
   * silently would let its sender believe it was checked. A bearer is tried as the environment's
   * key, a created key (`pgk_…`), then a JWT of the identity provider; nothing is cached, so a
   * revoked key or ended session is refused on every process from its next request.
   */
  async authenticate(credentials: Credentials): Promise<Caller | undefined> {
    const authorization = credentials.authorization ?? '';
    if (this.anonymous) return authorization.trim() === '' ? { role: 'admin', caller: 'anonymous' } : undefined;
    if (authorization.trim() === '') {
      if (credentials.session === undefined || this.company === undefined) return undefined;
      return this.company.callerOfSession(credentials.session);
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match === null) return undefined;
    const key = match[1]!;
    const known = this.lookup(key);
    if (known !== undefined) return known;
    const record = await this.records?.find(key);
    if (record !== undefined)
      return record.owner === null
        ? { role: record.role, caller: `key:${record.name}` }
        : { role: record.role, caller: record.owner, via: `key:${record.name}` };
    if (this.company === undefined || key.split('.').length !== 3) return undefined;
    const token = await this.company.callerOfToken(key);
    if ('refused' in token) {
      this.refusals.set(credentials, token.refused);
      return undefined;
    }
    return token;
  }

  /** Why `authenticate` refused these credentials, in words for the sender (never naming the key). */
  refusal(credentials?: Credentials): string {
    if (this.anonymous)
      return 'This gateway has no API keys configured (GATEWAY_API_KEYS is empty): it serves anonymous local use, so send no Authorization header.';
    const token = credentials === undefined ? undefined : this.refusals.get(credentials);
    if (token !== undefined) return `The bearer token was refused: ${token}.`;
    return this.company === undefined
      ? 'An API key is required: send "Authorization: Bearer <key>".'
      : 'Sign in, or send "Authorization: Bearer <key or access token>".';
  }

  /** The caller a key itself stands for (the CLI's key), or undefined. */
  lookup(key: string): Caller | undefined {
    return this.byHash.get(hash(key));
  }
}

/**
 * The keys of a configuration. Unnamed keys are fingerprinted with a secret derived from
 * the card-data key (PAYOUT_DATA_KEY, or the one made in DATA_DIR for embedded use):
 * every gateway, worker and CLI sharing the database already shares it, and nobody who
 * only sees a fingerprint (any viewer) can test guessed keys against it offline.
 */
export function apiKeysOf(config: Pick<GatewayConfig, 'apiKeys' | 'cardData' | 'dataDir' | 'payout'>): ApiKeys {
  if (config.apiKeys.every((entry) => entry.name !== undefined)) return new ApiKeys(config.apiKeys);
  const keyring = loadDataKeyring(config.cardData, { dataDir: config.dataDir, embedded: config.payout.mode === 'embedded' });
  return new ApiKeys(config.apiKeys, identitySecret(keyring.current));
}

/** A secret of its own for identities, so no use of it can reveal the data key. */
export function identitySecret(dataKey: DataKey): Buffer {
  return createHmac('sha256', dataKey.key).update('payout-gateway api key identity').digest();
}

function hash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

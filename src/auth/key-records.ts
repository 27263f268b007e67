import { createHash, randomBytes } from 'node:crypto';
import { sqlOf, type PrismaClient, type SqlQuery } from '../db/database.ts';
import type { ApiKey } from '../db/generated/client.ts';
import { KEY_NAME, roles, type Role } from '../config/api-key-entries.ts';
import { recordAudit, type AuditActor } from '../audit/audit.ts';
import { ApiKeyError } from './api-key-error.ts';

/** A key record as admins see it: never its secret, nor its hash. */
export type KeyRecord = Omit<ApiKey, 'secretHash' | 'role'> & { role: Role };

/** What a secret looks like: a prefix people and secret scanners recognise, and 256 random bits. */
const SECRET_PREFIX = 'pgk_';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

const shown = ({ secretHash: _hash, ...record }: ApiKey): KeyRecord => ({ ...record, role: record.role as Role });

/**
 * The lookup on every request by a key that is not one of GATEWAY_API_KEYS: a live key by its
 * secret's hash, and whether its last use is over a minute old by the database clock. Revoked or
 * expired keys are not found, on every process at once: nothing is cached. A plain SELECT on the
 * driver: the profile of bench/auth.ts showed a combined SELECT-and-UPDATE statement through
 * Prisma costing twice as much, on every request, to write once a minute.
 */
const findSql = `
SELECT id, name, role, owner, ("lastUsedAt" IS NULL OR "lastUsedAt" < now() - interval '1 minute') AS "noteUse" FROM "ApiKey"
WHERE "secretHash" = $1 AND "revokedAt" IS NULL AND ("expiresAt" IS NULL OR "expiresAt" > now())`;

/** Its use noted, at most once a minute however many processes see it at once. */
const noteUseSql = `
UPDATE "ApiKey" SET "lastUsedAt" = now() WHERE id = $1::uuid AND ("lastUsedAt" IS NULL OR "lastUsedAt" < now() - interval '1 minute')`;

/**
 * API keys an admin creates and revokes (issue 40), the one writer of the ApiKey table. The
 * secret is returned once, by create; the table keeps its SHA-256 and its last four characters.
 */
export class KeyRecords {
  constructor(
    private readonly prisma: PrismaClient,
    /** The database's driver (Database.query): the per-request lookup runs on it, not through Prisma. */
    private readonly query: SqlQuery,
  ) {}

  /** The key's name and role for a presented secret, or undefined when no live key has it. */
  async find(secret: string): Promise<{ name: string; role: Role; owner: string | null } | undefined> {
    if (!secret.startsWith(SECRET_PREFIX)) return undefined;
    const [row] = await this.query<{ id: string; name: string; role: string; owner: string | null; noteUse: boolean }>(findSql, [
      hashSecret(secret),
    ]);
    if (row?.noteUse === true) await this.query(noteUseSql, [row.id]);
    return row === undefined || !roles.includes(row.role as Role)
      ? undefined
      : { name: row.name, role: row.role as Role, owner: row.owner };
  }

  async list(): Promise<KeyRecord[]> {
    const rows = await this.prisma.apiKey.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
    return rows.map(shown);
  }

  /**
   * A new key: its secret (shown this once) and its record. `taken` holds the identities the
   * environment's keys already are (`key:NAME`): a name is one identity, whichever way it came.
   */
  async create(
    request: { name: string; role: Role; expiresAt?: Date | null | undefined; owner?: string | null | undefined },
    by: AuditActor,
    taken: ReadonlySet<string>,
  ): Promise<{ secret: string; record: KeyRecord }> {
    if (!KEY_NAME.test(request.name))
      throw new ApiKeyError(
        'API_KEY_NAME_INVALID',
        `"${request.name}" is not a key name: a letter, then up to 39 letters, digits, dots, dashes or underscores`,
      );
    if (request.expiresAt != null && request.expiresAt.getTime() <= Date.now())
      throw new ApiKeyError('API_KEY_EXPIRY_INVALID', `expiresAt ${request.expiresAt.toISOString()} is in the past`);
    // Compared without case, as the environment's names are (Alice and alice would be one person to a reader).
    if ([...taken].some((identity) => identity.toLowerCase() === `key:${request.name}`.toLowerCase()))
      throw new ApiKeyError('API_KEY_NAME_TAKEN', `key:${request.name} is a key of GATEWAY_API_KEYS: choose another name`);
    const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
    const created = await this.prisma.$transaction(async (tx) => {
      // Two admins naming two keys alike at once: one waits for the other's answer.
      await sqlOf(tx)(`SELECT pg_advisory_xact_lock(hashtext($1))::text AS locked`, ['ApiKey.name']);
      const live = await tx.apiKey.findFirst({
        where: { name: { equals: request.name, mode: 'insensitive' }, revokedAt: null },
        select: { id: true },
      });
      if (live !== null)
        throw new ApiKeyError('API_KEY_NAME_TAKEN', `a key named ${request.name} is live: revoke it first, or choose another name`);
      // Issued to a person: it acts as them, so it must be someone the provider has named (people.ts), not a typo.
      if (request.owner != null && (await tx.person.findUnique({ where: { identity: request.owner }, select: { service: true } })) === null)
        throw new ApiKeyError(
          'API_KEY_OWNER_UNKNOWN',
          `${request.owner} has never signed in here: they must sign in once before a key is issued to them`,
        );
      const row = await tx.apiKey.create({
        data: {
          name: request.name,
          role: request.role,
          secretHash: hashSecret(secret),
          hint: secret.slice(-4),
          createdBy: by.actor,
          expiresAt: request.expiresAt ?? null,
          owner: request.owner ?? null,
        },
      });
      await recordAudit(tx, by, {
        action: 'api-key.create',
        detail: { keyId: row.id, name: row.name, role: row.role, expiresAt: row.expiresAt?.toISOString() ?? null, owner: row.owner },
      });
      return row;
    });
    return { secret, record: shown(created) };
  }

  /** Revokes a key at once, on every process; revoking a revoked key changes nothing and says when it was. */
  async revoke(id: string, by: AuditActor): Promise<KeyRecord> {
    return this.prisma.$transaction(async (tx) => {
      const existing = /^[0-9a-f-]{36}$/i.test(id) ? await tx.apiKey.findUnique({ where: { id } }) : null;
      if (existing === null) throw new ApiKeyError('API_KEY_NOT_FOUND', `no API key ${id}`);
      if (existing.revokedAt !== null) return shown(existing);
      const row = await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date(), revokedBy: by.actor } });
      await recordAudit(tx, by, { action: 'api-key.revoke', detail: { keyId: row.id, name: row.name } });
      return shown(row);
    });
  }
}

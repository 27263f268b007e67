import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Role } from '../config/api-key-entries.ts';
import { roles } from '../config/api-key-entries.ts';
import type { DataKeyring } from '../crypto/data-keys.ts';
import { open, seal } from '../crypto/envelope.ts';
import { sqlOf, type PrismaClient, type SqlQuery } from '../db/database.ts';

/** The provider's tokens a session keeps, sealed: to refresh the role, and to sign out at the provider. */
export interface SessionTokens {
  refreshToken: string | undefined;
  idToken: string | undefined;
}

export interface LiveSession {
  id: string;
  identity: string;
  role: Role;
  /** The role is due to be read again from the provider. */
  refreshDue: boolean;
}

export interface SessionTimes {
  idleMs: number;
  maxMs: number;
  refreshMs: number;
}

/** Why a session ended, as the Session row says. */
export type SessionEnd = 'signed-out' | 'refresh-refused' | 'no-role';

/** How long an ended or expired session's row is kept (who was signed in when, for an operator's questions). */
const KEEP_ENDED_MS = 30 * 86_400_000;

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const sealContext = (id: string) => `session:${id}`;

/**
 * What every request with a session cookie costs: the live session for a secret, and whether
 * its last use is over a minute old (idleness is counted in minutes), then that use noted only
 * then. Ended, expired and idle sessions are not found, on every process at once. On the driver,
 * as created keys' lookup (key-records.ts says why).
 */
const findSql = `
SELECT id, identity, role, "refreshAt" <= now() AS "refreshDue", "lastSeenAt" < now() - interval '1 minute' AS "noteUse" FROM "Session"
WHERE "secretHash" = $1 AND "endedAt" IS NULL AND "expiresAt" > now() AND "lastSeenAt" > now() - make_interval(secs => $2)`;

const noteUseSql = `
UPDATE "Session" SET "lastSeenAt" = now() WHERE id = $1::uuid AND "lastSeenAt" < now() - interval '1 minute'`;

/** Takes a due refresh for one process: the others go on with the role they read meanwhile. */
const claimRefreshSql = `
UPDATE "Session" SET "refreshAt" = now() + interval '1 minute'
WHERE id = $1::uuid AND "endedAt" IS NULL AND "refreshAt" <= now()
RETURNING tokens`;

/**
 * The page's signed-in sessions (issue 40), the one writer of the Session table. The browser
 * holds a random secret in an HttpOnly cookie; the row holds its SHA-256, the identity and role
 * read at sign-in, and the provider's tokens sealed with the data key.
 */
export class Sessions {
  constructor(
    private readonly prisma: PrismaClient,
    /** The database's driver (Database.query), for the per-request lookup. */
    private readonly query: SqlQuery,
    private readonly keyring: DataKeyring,
    readonly times: SessionTimes,
  ) {}

  /** A new session: the secret for the cookie (never stored) and when it ends at the latest. */
  async start(who: { identity: string; role: Role }, tokens: SessionTokens): Promise<{ secret: string; expiresAt: Date }> {
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    const now = Date.now();
    const expiresAt = new Date(now + this.times.maxMs);
    // Sign-ins are few: each takes away what ended a month ago, so the table stays small without a sweep of its own.
    await this.prisma.session.deleteMany({ where: { expiresAt: { lt: new Date(now - KEEP_ENDED_MS) } } });
    await this.prisma.session.create({
      data: {
        id,
        secretHash: hashOf(secret),
        identity: who.identity,
        role: who.role,
        refreshAt: new Date(now + this.times.refreshMs),
        expiresAt,
        tokens: seal(this.keyring, Buffer.from(JSON.stringify(tokens)), sealContext(id)),
      },
    });
    return { secret, expiresAt };
  }

  async find(secret: string): Promise<LiveSession | undefined> {
    const [row] = await this.query<{ id: string; identity: string; role: string; refreshDue: boolean; noteUse: boolean }>(findSql, [
      hashOf(secret),
      this.times.idleMs / 1000,
    ]);
    if (row?.noteUse === true) await this.query(noteUseSql, [row.id]);
    if (row === undefined || !roles.includes(row.role as Role)) return undefined;
    return { id: row.id, identity: row.identity, role: row.role as Role, refreshDue: row.refreshDue };
  }

  /** The tokens to refresh with, when this process takes the refresh; undefined when another has. */
  async claimRefresh(id: string): Promise<SessionTokens | undefined> {
    const [row] = await sqlOf(this.prisma)<{ tokens: unknown }>(claimRefreshSql, [id]);
    return row === undefined ? undefined : this.opened(id, row.tokens);
  }

  /** What a refresh read: the role now, and the provider's new tokens (a refresh token may rotate). */
  async refreshed(id: string, role: Role, tokens: SessionTokens): Promise<void> {
    await this.prisma.session.updateMany({
      where: { id, endedAt: null },
      data: {
        role,
        refreshAt: new Date(Date.now() + this.times.refreshMs),
        tokens: seal(this.keyring, Buffer.from(JSON.stringify(tokens)), sealContext(id)),
      },
    });
  }

  /** Ends a session; the provider's tokens go with it at once (an ended session is never refreshed or signed out again). */
  async end(id: string, why: SessionEnd): Promise<void> {
    await this.prisma.session.updateMany({ where: { id, endedAt: null }, data: { endedAt: new Date(), endedWhy: why, tokens: {} } });
  }

  /** Ends the session of a cookie (sign-out): its tokens, for the provider's sign-out, or undefined when none was live. */
  async endBySecret(secret: string): Promise<SessionTokens | undefined> {
    const row = await this.prisma.session.findFirst({
      where: { secretHash: hashOf(secret), endedAt: null },
      select: { id: true, tokens: true },
    });
    if (row === null) return undefined;
    const tokens = this.opened(row.id, row.tokens);
    await this.end(row.id, 'signed-out');
    return tokens;
  }

  private opened(id: string, tokens: unknown): SessionTokens {
    return JSON.parse(open(this.keyring, tokens, sealContext(id)).toString('utf8')) as SessionTokens;
  }
}

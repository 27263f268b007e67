import { sqlOf, type PrismaClient } from '../db/database.ts';
import type { ClaimedIdentity } from './oidc/claims.ts';

/** A person or service as pages show them. */
export interface PersonView {
  identity: string;
  name: string;
  email: string | null;
  service: boolean;
}

/** How often one process writes a subject it has seen already: names rarely change, requests are many. */
const NOTE_EVERY_MS = 5 * 60_000;

const noteSql = `
INSERT INTO "Person" (identity, name, email, service) VALUES ($1, $2, $3, $4)
ON CONFLICT (identity) DO UPDATE SET name = excluded.name, email = excluded.email, service = excluded.service, "lastSeenAt" = now()
RETURNING identity`;

/**
 * The people and services the identity provider named (issue 40), the one writer of the Person
 * table: identities stay `user:SUB` everywhere, and this is where a name is found for one.
 */
export class People {
  private readonly noted = new Map<string, { at: number; words: string }>();

  constructor(private readonly prisma: PrismaClient) {}

  /** Records who signed in or called: the provider's latest name and email for the subject. */
  async note(who: ClaimedIdentity): Promise<void> {
    const words = `${who.name}\n${who.email ?? ''}\n${who.service}`;
    const last = this.noted.get(who.identity);
    if (last !== undefined && last.words === words && Date.now() - last.at < NOTE_EVERY_MS) return;
    await sqlOf(this.prisma)(noteSql, [who.identity, who.name, who.email ?? null, who.service]);
    this.noted.set(who.identity, { at: Date.now(), words });
  }

  /** The people among these identities; the others (keys, "local", unknown) are not here. */
  async named(identities: readonly string[]): Promise<PersonView[]> {
    const wanted = identities.filter((id) => id.startsWith('user:'));
    if (wanted.length === 0) return [];
    return this.prisma.person.findMany({
      where: { identity: { in: wanted } },
      select: { identity: true, name: true, email: true, service: true },
    });
  }

  /** Everyone who has signed in or called, newest first: whom a key may be issued to. */
  async list(): Promise<PersonView[]> {
    return this.prisma.person.findMany({
      orderBy: [{ lastSeenAt: 'desc' }, { identity: 'asc' }],
      select: { identity: true, name: true, email: true, service: true },
    });
  }
}

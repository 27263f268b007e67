import type { PersonView } from '../../auth/people.ts';
import { authScopesFor } from '../../auth/roles.ts';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';

/*
 * Who an identity is (issue 40): uploadedBy, approvedBy, approvals and the audit trail hold
 * identities (`user:SUB`, `key:NAME`), and pages show the names behind them.
 */

export type IdentityKindName = 'PERSON' | 'SERVICE' | 'KEY' | 'LOCAL';

export interface IdentityView {
  id: string;
  name: string;
  email: string | null;
  kind: IdentityKindName;
}

const IdentityKind = builder.enumType('IdentityKind', {
  description: 'What an identity is.',
  values: {
    PERSON: { description: 'A person of the identity provider (`user:SUB`): signed in, by token, or by a key issued to them.' },
    SERVICE: { description: 'A service of the identity provider (client credentials, `user:CLIENT`).' },
    KEY: { description: 'An API key of its own (`key:NAME`, or `key:` and a fingerprint).' },
    LOCAL: { description: 'Key-less local use, the CLI without a key, or the gateway itself ("anonymous", "local", "cli", "system").' },
  },
});

export const IdentityRef = builder.objectRef<IdentityView>('Identity').implement({
  description: 'Someone or something that acts, as pages show it.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The identity as uploadedBy, approvedBy and the audit trail hold it.' }),
    name: t.exposeString('name', {
      description: 'A name to show: the provider’s name for a person (their email or subject when it gave none), a key’s name.',
    }),
    email: t.exposeString('email', { nullable: true, description: 'A person’s email, when the provider gave one.' }),
    kind: t.field({ type: IdentityKind, description: 'What it is.', resolve: (i) => i.kind }),
  }),
});

/** An identity with what is known of it; `person` from People.named. */
export function identityView(id: string, person: PersonView | undefined): IdentityView {
  if (person !== undefined) return { id, name: person.name, email: person.email, kind: person.service ? 'SERVICE' : 'PERSON' };
  if (id.startsWith('key:')) return { id, name: id.slice(4), email: null, kind: 'KEY' };
  if (id.startsWith('user:')) return { id, name: id.slice(5), email: null, kind: 'PERSON' };
  return { id, name: id, email: null, kind: 'LOCAL' };
}

/** Several identities at once, each once, in the order asked. */
export async function identityViews(context: GraphQLContext, ids: readonly string[]): Promise<IdentityView[]> {
  const people = (await context.keys.companyIdentity?.people.named(ids)) ?? [];
  const byId = new Map(people.map((p) => [p.identity, p]));
  return [...new Set(ids)].map((id) => identityView(id, byId.get(id)));
}

const MAX_IDENTITIES = 200;

builder.queryFields((t) => ({
  identities: t.field({
    type: [IdentityRef],
    authScopes: { read: true },
    description: `Who these identities are, each answered once (the first ${MAX_IDENTITIES} asked): the names a page shows for uploadedBy, approvedBy and approvals.`,
    args: { ids: t.arg.stringList({ required: true, description: 'Identities as the gateway holds them (`user:SUB`, `key:NAME`).' }) },
    resolve: (_root, { ids }, context) => identityViews(context, ids.slice(0, MAX_IDENTITIES)),
  }),
  people: t.field({
    type: [IdentityRef],
    authScopes: authScopesFor('manageApiKeys'),
    description:
      'Everyone the identity provider has named here (signed in, or called with a token), last seen first: whom a key may be issued to. Admins only.',
    resolve: async (_root, _args, context) =>
      ((await context.keys.companyIdentity?.people.list()) ?? []).map((p) => identityView(p.identity, p)),
  }),
}));

import type { Role } from '../../auth/roles.ts';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';
import { RoleEnum } from './enums.ts';
import { identityViews } from './identities.ts';

interface CallerView {
  identity: string;
  role: Role;
  via: string | undefined;
  approvesOwnBatches: boolean;
  context: GraphQLContext;
}

const Caller = builder.objectRef<CallerView>('Caller').implement({
  description: 'Who makes a request, as the gateway names them: a person signed in or by token, a service, or a key.',
  fields: (t) => ({
    name: t.string({
      description: 'The name the page shows: the identity provider’s for a person or service, a key’s name.',
      resolve: async (c) => (await identityViews(c.context, [c.identity]))[0]!.name,
    }),
    via: t.string({
      nullable: true,
      description:
        'How they came when identity does not say: `session` (signed in on the page), `token` (a bearer token of the identity provider), or `key:NAME` (a key issued to this person).',
      resolve: (c) => c.via ?? null,
    }),
    identity: t.exposeString('identity', {
      description:
        'What uploadedBy, approvedBy and the audit trail hold for this caller: user:SUB for a person or service of the identity provider (also through a key issued to them), key:NAME, key: and a keyed fingerprint for an unnamed key, or "anonymous" without keys.',
    }),
    role: t.field({ type: RoleEnum, description: 'The key’s role: what it may do.', resolve: (c) => c.role }),
    approvesOwnBatches: t.exposeBoolean('approvesOwnBatches', {
      description:
        'Whether this key may approve a batch it uploaded: only when the gateway runs single-user (no keys, or GATEWAY_SINGLE_USER=true). Otherwise maker-checker refuses it (batch.same-person) and a second approver or admin must.',
    }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({
    type: Caller,
    description: 'Who this key is: the page compares it with a batch’s uploadedBy (maker-checker), which only the gateway can compute.',
    authScopes: { read: true },
    resolve: (_root, _args, context) => ({
      identity: context.caller,
      role: context.role,
      via: context.via,
      approvesOwnBatches: context.services.batches.singleUser,
      context,
    }),
  }),
}));

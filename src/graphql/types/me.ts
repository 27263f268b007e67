import type { Role } from '../../auth/roles.ts';
import { builder } from '../builder.ts';
import { RoleEnum } from './enums.ts';

interface CallerView {
  identity: string;
  role: Role;
  approvesOwnBatches: boolean;
}

const Caller = builder.objectRef<CallerView>('Caller').implement({
  description: 'The key a request is made with, as the gateway names it.',
  fields: (t) => ({
    identity: t.exposeString('identity', {
      description:
        'What uploadedBy, approvedBy and the audit trail hold for this key: key:NAME, key: and a keyed fingerprint for an unnamed key, or "anonymous" without keys.',
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
    resolve: (_root, _args, { caller, role, services }) => ({ identity: caller, role, approvesOwnBatches: services.batches.singleUser }),
  }),
}));

import { builder } from '../builder.ts';

interface CallerView {
  identity: string;
  role: string;
}

const Caller = builder.objectRef<CallerView>('Caller').implement({
  description: 'The key a request is made with, as the gateway names it.',
  fields: (t) => ({
    identity: t.exposeString('identity', {
      description: 'What uploadedBy, approvedBy and the audit trail hold for this key: key:NAME, key: and a keyed fingerprint for an unnamed key, or "anonymous" without keys.',
    }),
    role: t.exposeString('role', { description: 'viewer, operator, approver or admin.' }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({
    type: Caller,
    description: 'Who this key is: the page compares it with a batch’s uploadedBy (maker-checker), which only the gateway can compute.',
    authScopes: { read: true },
    resolve: (_root, _args, { caller, role }) => ({ identity: caller, role }),
  }),
}));

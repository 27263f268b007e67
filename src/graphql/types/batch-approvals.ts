import type { ApprovalState } from '../../approval/approvals.ts';
import { approvableStates } from '../../batch/lifecycle/batch-states.ts';
import { rowStates } from '../../batch/rows/row-states.ts';
import type { Batch as BatchRow } from '../../db/generated/client.ts';
import { roles, type Role } from '../../auth/roles.ts';
import type { GraphQLContext } from '../context.ts';
import { builder } from '../builder.ts';
import { Batch } from './batch.ts';
import { RoleEnum } from './enums.ts';

interface ApprovalView {
  by: string;
  role: string | null;
  at: Date;
}

const asRole = (role: string | null): Role | null => ((roles as readonly string[]).includes(role ?? '') ? (role as Role) : null);

const ApprovalRef = builder.objectRef<ApprovalView>('Approval').implement({
  description: 'One person’s approval of a batch (approveBatch), counted by the approval policy.',
  fields: (t) => ({
    by: t.string({ description: 'Who approved, as approvedBy names keys (key:NAME).', resolve: (a) => a.by }),
    role: t.field({ type: RoleEnum, nullable: true, description: 'Their role when they approved.', resolve: (a) => asRole(a.role) }),
    at: t.field({ type: 'DateTime', description: 'When.', resolve: (a) => a.at }),
  }),
});

const ApprovalsNeededRef = builder.objectRef<ApprovalState>('ApprovalsNeeded').implement({
  description: 'What the approval policy (APPROVAL_POLICY_FILE) still needs before the batch starts: a result, not an error.',
  fields: (t) => ({
    count: t.int({ description: 'How many more distinct people must approve (the uploader never counts).', resolve: (s) => s.needed.count }),
    roles: t.field({ type: [RoleEnum], description: 'Roles that must be among them, one person each (e.g. [admin]).', resolve: (s) => s.needed.roles as Role[] }),
    required: t.int({ description: 'How many approvals this batch needs in all, by its tier.', resolve: (s) => s.required.count }),
    lapsed: t.field({
      type: [ApprovalRef],
      description: 'Approvals older than APPROVAL_LAPSE_DAYS: they no longer count, and their people must approve again.',
      resolve: (s) => s.lapsed.map((a) => ({ by: a.actor, role: a.role, at: a.at })),
    }),
    lapseDays: t.float({ description: 'APPROVAL_LAPSE_DAYS: how long an approval counts.', resolve: (s) => s.lapseDays }),
  }),
});

/** Where a batch awaiting approval stands against the policy, for the rows its latest approval chose (held rows included or not). */
async function approvalStateOf(batch: BatchRow, { services }: GraphQLContext): Promise<ApprovalState> {
  const latest = await services.approvals.latestChoice(services.prisma, batch.id);
  const includeHeld = latest?.includeHeld ?? batch.includeHeld;
  return services.approvals.batchState(
    services.prisma,
    {
      batchId: batch.id,
      uploadedBy: batch.uploadedBy,
      includeHeld,
      validRowsOnly: latest?.validRowsOnly ?? batch.validRowsOnly,
      rowStatuses: includeHeld ? [rowStates.pending, rowStates.duplicate] : [rowStates.pending],
    },
    new Date(),
  );
}

builder.objectFields(Batch, (t) => ({
  approvals: t.field({
    type: [ApprovalRef],
    description: 'The approvals that count towards the policy now (before it starts), or that started it: one per person, earliest first.',
    resolve: async (b, _args, context) => {
      // Once started, as it stood then: its rows have moved on from waiting, and approvals do not lapse after the fact.
      if (b.approvedAt !== null) {
        const started = await context.services.approvals.startedWith(context.services.prisma, { batchId: b.id, uploadedBy: b.uploadedBy, approvedAt: b.approvedAt });
        return started.map((a) => ({ by: a.actor, role: a.role, at: a.at }));
      }
      return (await approvalStateOf(b, context)).approvals.map((a) => ({ by: a.actor, role: a.role, at: a.at }));
    },
  }),
  approvalsNeeded: t.field({
    type: ApprovalsNeededRef,
    nullable: true,
    description: 'While the batch awaits approval: how many more people, of which roles, the policy needs Null once it started, or while it cannot be approved.',
    resolve: async (b, _args, context) => (b.approvedAt === null && approvableStates.includes(b.status) ? approvalStateOf(b, context) : null),
  }),
}));

import { BatchStateError, approvableStates } from '../../../batch/index.ts';
import { GraphQLError } from 'graphql';
import { authScopesFor } from '../../../auth/roles.ts';
import { requestActor } from '../../../audit/audit.ts';
import { typedResult } from '../errors.ts';
import type { ApprovalState, PendingChoice } from '../../../approval/approvals.ts';
import type { StoredApproval } from '../../../approval/approval-store.ts';
import { pendingInWords } from '../../../approval/choice-words.ts';
import type { GivenApproval } from '../../../approval/evaluate.ts';
import type { Batch as BatchRow } from '../../../db/generated/client.ts';
import { roles, type Role } from '../../../auth/roles.ts';
import type { GraphQLContext } from '../../context.ts';
import { builder } from '../../builder.ts';
import { Batch } from './batch.ts';
import { RoleEnum } from '../enums.ts';

interface ApprovalView {
  by: string;
  role: string | null;
  at: Date;
  payAt: Date | null;
  includeHeld: boolean;
  includeChangedAccounts: boolean;
}

const viewOf = (a: GivenApproval & Partial<Pick<StoredApproval, 'includeHeld' | 'includeChangedAccounts'>>): ApprovalView => ({
  by: a.actor,
  role: a.role,
  at: a.at,
  payAt: a.payAt,
  includeHeld: a.includeHeld ?? false,
  includeChangedAccounts: a.includeChangedAccounts ?? false,
});

const asRole = (role: string | null): Role | null => ((roles as readonly string[]).includes(role ?? '') ? (role as Role) : null);

const ApprovalRef = builder.objectRef<ApprovalView>('Approval').implement({
  description: 'One person’s approval of a batch (approveBatch), counted by the approval policy.',
  fields: (t) => ({
    by: t.string({ description: 'Who approved, as approvedBy names keys (key:NAME).', resolve: (a) => a.by }),
    role: t.field({ type: RoleEnum, nullable: true, description: 'Their role when they approved.', resolve: (a) => asRole(a.role) }),
    at: t.field({ type: 'DateTime', description: 'When.', resolve: (a) => a.at }),
    payAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'The time to pay this approval agreed to; null: as soon as the approvals are complete.',
      resolve: (a) => a.payAt,
    }),
    includeHeld: t.boolean({ description: 'It agreed to pay the held repeats too.', resolve: (a) => a.includeHeld }),
    includeChangedAccounts: t.boolean({
      description: 'It agreed to pay the rows held for a changed account too.',
      resolve: (a) => a.includeChangedAccounts,
    }),
  }),
});

const PendingApprovalRef = builder.objectRef<PendingChoice & { currency: string }>('PendingApproval').implement({
  description:
    'The choice the approvals given so far agree to, while the policy needs more (decision 0029): a later approver completes it (approveBatch agree) or starts a new round with another choice (newRound), after which these approvals no longer count.',
  fields: (t) => ({
    approvals: t.field({
      type: [ApprovalRef],
      description: 'Who agreed to it, earliest first.',
      resolve: (p) => p.state.approvals.map(viewOf),
    }),
    payAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it pays; null: as soon as the approvals are complete.',
      resolve: (p) => p.choice.payAt,
    }),
    includeHeld: t.boolean({ description: 'The held repeats are paid too.', resolve: (p) => p.choice.includeHeld }),
    includeChangedAccounts: t.boolean({
      description: 'The rows held for a changed account are paid too.',
      resolve: (p) => p.choice.includeChangedAccounts,
    }),
    validRowsOnly: t.boolean({ description: 'Only the valid rows of a batch with row errors.', resolve: (p) => p.choice.validRowsOnly }),
    rows: t.int({ description: 'How many rows it pays.', resolve: (p) => p.state.rows.count }),
    amount: t.string({ description: 'What they add up to, a decimal string in the batch’s currency.', resolve: (p) => p.state.rows.total }),
    summary: t.string({
      description:
        'The choice in words, e.g. "key:april approved paying 3 rows, 35,500.50 RUB, at 28 Nov 2026, 09:53 UTC" (times in UTC; clients format payAt themselves).',
      resolve: (p) => pendingInWords(p, p.currency),
    }),
  }),
});

const ApprovalsNeededRef = builder.objectRef<ApprovalState>('ApprovalsNeeded').implement({
  description: 'What the approval policy (APPROVAL_POLICY_FILE) still needs before the batch starts: a result, not an error.',
  fields: (t) => ({
    count: t.int({
      description: 'How many more distinct people must approve (the uploader never counts).',
      resolve: (s) => s.needed.count,
    }),
    roles: t.field({
      type: [RoleEnum],
      description: 'Roles that must be among them, one person each (e.g. [admin]).',
      resolve: (s) => s.needed.roles as Role[],
    }),
    required: t.int({ description: 'How many approvals this batch needs in all, by its tier.', resolve: (s) => s.required.count }),
    lapsed: t.field({
      type: [ApprovalRef],
      description: 'Approvals older than APPROVAL_LAPSE_DAYS: they no longer count, and their people must approve again.',
      resolve: (s) => s.lapsed.map(viewOf),
    }),
    lapseDays: t.float({ description: 'APPROVAL_LAPSE_DAYS: how long an approval counts.', resolve: (s) => s.lapseDays }),
  }),
});

/**
 * Where a batch awaiting approval stands against the policy, read once per batch object:
 * approvals, approvalsNeeded and pendingApproval of one batch view all ask, and each read is
 * the batch's approvals and its rows' fingerprint. Keyed by the object its resolvers share, so a
 * later mutation's batch (a new object) is read afresh.
 */
const views = new WeakMap<BatchRow, ReturnType<GraphQLContext['services']['approvals']['batchView']>>();
function approvalViewOf(batch: BatchRow, context: GraphQLContext) {
  let view = views.get(batch);
  if (view === undefined) {
    view = context.services.approvals.batchView(context.services.prisma, { batchId: batch.id, uploadedBy: batch.uploadedBy }, new Date());
    views.set(batch, view);
  }
  return view;
}
const approvalStateOf = async (batch: BatchRow, context: GraphQLContext): Promise<ApprovalState> =>
  (await approvalViewOf(batch, context)).state;

builder.objectFields(Batch, (t) => ({
  approvals: t.field({
    type: [ApprovalRef],
    description: 'The approvals that count towards the policy now (before it starts), or that started it: one per person, earliest first.',
    resolve: async (b, _args, context) => {
      // Once started, as it stood then: its rows have moved on from waiting, and approvals do not lapse after the fact.
      if (b.approvedAt !== null) {
        const started = await context.services.approvals.startedWith(context.services.prisma, {
          batchId: b.id,
          uploadedBy: b.uploadedBy,
          approvedAt: b.approvedAt,
        });
        return started.map(viewOf);
      }
      return (await approvalStateOf(b, context)).approvals.map(viewOf);
    },
  }),
  pendingApproval: t.field({
    type: PendingApprovalRef,
    nullable: true,
    description:
      'While the batch awaits more approvals: the choice (rows, time to pay) those given agree to. Null when none counts yet, once it started, or while it cannot be approved.',
    resolve: async (b, _args, context) => {
      if (b.approvedAt !== null || !approvableStates.includes(b.status)) return null;
      const { pending } = await approvalViewOf(b, context);
      return pending === undefined ? null : { ...pending, currency: b.currency };
    },
  }),
  approvalsNeeded: t.field({
    type: ApprovalsNeededRef,
    nullable: true,
    description:
      'While the batch awaits approval: how many more people, of which roles, the policy needs Null once it started, or while it cannot be approved.',
    resolve: async (b, _args, context) =>
      b.approvedAt === null && approvableStates.includes(b.status) ? approvalStateOf(b, context) : null,
  }),
}));

/**
 * approveBatch's includeHeld, or includeFlagged, its former name: either may be given; both
 * given with different values is the client's mistake, refused rather than guessed.
 */
function includeHeldArgument(includeHeld: boolean | null | undefined, includeFlagged: boolean | null | undefined): boolean {
  if (includeHeld != null && includeFlagged != null && includeHeld !== includeFlagged) {
    throw new GraphQLError(
      `includeHeld (${includeHeld}) and includeFlagged (${includeFlagged}), its former name, differ: give includeHeld alone`,
      {
        extensions: { code: 'BAD_USER_INPUT', argument: 'includeFlagged' },
      },
    );
  }
  return includeHeld ?? includeFlagged ?? false;
}

const batchResult = (name: string) => typedResult(name, [BatchStateError], 'batch');

builder.mutationFields((t) => ({
  approveBatch: t.field({
    type: Batch,
    description:
      'Records an approval of a choice (the rows, and when to pay), and starts paying once the approval policy is met by approvals of that same choice (APPROVAL_POLICY_FILE; default: one approver; decision 0029): until then the batch comes back as it was, with approvals and approvalsNeeded saying who approved and what is still needed. Needs the approver (or admin) role and, unless single-user, someone other than the uploader. Held rows (status DUPLICATE: held, repeats a payment) are left unpaid unless includeHeld; rows that repeat a batch approved since the import are held now and the approval is refused once (BATCH_NEW_DUPLICATES) so the approver sees them.',
    authScopes: authScopesFor('approveBatch'),
    errors: batchResult('ApproveBatch'),
    args: {
      id: t.arg.id({ required: true, description: 'The batch’s id.' }),
      validRowsOnly: t.arg.boolean({ defaultValue: false, description: 'Pay the valid rows of a batch that has row errors.' }),
      // No default, here or on its former name: a value given is told apart from one left out.
      includeHeld: t.arg.boolean({
        description: 'Pay the held rows too (recorded in the audit trail). Without it (false when left out) they are never paid.',
      }),
      includeChangedAccounts: t.arg.boolean({
        defaultValue: false,
        description:
          'Pay the rows held because their payee’s account changed since the last payment (BatchItem.payeeMark ACCOUNT_CHANGED; recorded in the audit trail). includeHeld does not pay them: a row held for both needs both.',
      }),
      includeFlagged: t.arg.boolean({
        deprecationReason: 'Use includeHeld',
        description: 'The former name of includeHeld, the same choice; both given with different values is refused (BAD_USER_INPUT).',
      }),
      ignoreBalance: t.arg.boolean({
        defaultValue: false,
        description:
          'Start although the balance does not cover this batch, the batches already approved and their estimated commission (BATCH_INSUFFICIENT_FUNDS), or cannot be read (BATCH_BALANCE_UNKNOWN). Recorded in the audit trail; the batch pauses when the money runs out.',
      }),
      payAt: t.arg({
        type: 'DateTime',
        description:
          'Pay at this time (with its offset) instead of now: the batch waits SCHEDULED and starts by itself (docs/guide/scheduling.md). Past, or beyond SCHEDULE_HORIZON_DAYS: refused.',
      }),
      agree: t.arg.boolean({
        defaultValue: false,
        description:
          'Agree to the choice awaiting more approvals (Batch.pendingApproval: its rows and time to pay) as your own: given alone. Without it, an approval of another choice than one awaiting is refused (BATCH_APPROVAL_DIFFERS) unless newRound.',
      }),
      newRound: t.arg.boolean({
        defaultValue: false,
        description:
          'Approve your choice although others approved another one: theirs stops counting and they must approve again (recorded in the audit trail as replaced).',
      }),
    },
    resolve: (
      _root,
      { id, validRowsOnly, includeHeld, includeChangedAccounts, includeFlagged, ignoreBalance, payAt, agree, newRound },
      { services, caller, role, via, requestId, client },
    ) =>
      services.batches.approve(String(id), {
        approver: caller,
        validRowsOnly: validRowsOnly ?? false,
        includeHeld: includeHeldArgument(includeHeld, includeFlagged),
        includeChangedAccounts: includeChangedAccounts ?? false,
        ignoreBalance: ignoreBalance ?? false,
        payAt: payAt ?? null,
        agree: agree ?? false,
        newRound: newRound ?? false,
        by: requestActor({ role, caller, via, requestId, client }),
      }),
  }),
}));

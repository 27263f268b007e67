import { resolveCursorConnection } from '@pothos/plugin-relay';
import type { AuditEvent as AuditEventRow, Prisma } from '../../db/generated/client.ts';
import type { AuditAction } from '../../audit/audit.ts';
import type { Role } from '../../auth/roles.ts';
import { builder } from '../builder.ts';
import { AuditActionEnum, RoleEnum } from './enums.ts';
import { checkPageSizes, pageOptions, pageSizeNote, parseNumberCursor, readCursor } from './paging.ts';
import { KeyValue } from './payment/payment.ts';

const DEFAULT_PAGE = 20;

const adminOnly = (context: { role: string }) => context.role === 'admin';

const AuditEvent = builder.node(builder.objectRef<AuditEventRow>('AuditEvent'), {
  description: 'One action on money recorded by the gateway: who did it, when, to what, and in which request. Admin keys only.',
  id: { resolve: (e) => e.id.toString() },
  loadOne: (id, { services }) => (/^\d{1,19}$/.test(id) ? services.prisma.auditEvent.findUnique({ where: { id: BigInt(id) } }) : null),
  // The same rule as auditEvents, on the type: node(id:) cannot show an event to a non-admin.
  authScopes: (_event, context) => adminOnly(context),
  runScopesOnType: true,
  fields: (t) => ({
    at: t.field({ type: 'DateTime', description: 'When it was done.', resolve: (e) => e.at }),
    action: t.field({ type: AuditActionEnum, description: 'What was done.', resolve: (e) => e.action as AuditAction }),
    actor: t.exposeString('actor', {
      description: 'The API key’s fingerprint (key:…, never the key), "local" in key-less mode, or "cli".',
    }),
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'The key’s role; null for the command line.',
      resolve: (e) => e.role as Role | null,
    }),
    batchId: t.id({ nullable: true, description: 'The batch it was done to; null for an action on no batch.', resolve: (e) => e.batchId }),
    paymentId: t.id({
      nullable: true,
      description: 'The payment it was done to; null for an action on no single payment.',
      resolve: (e) => e.paymentId,
    }),
    detail: t.field({
      type: [KeyValue],
      description: 'A few facts about the action (counts, flags, the state it was in), sorted by key.',
      resolve: (e) =>
        Object.entries((e.detail ?? {}) as Record<string, unknown>)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([key, value]) => ({ key, value: String(value) })),
    }),
    requestId: t.string({
      nullable: true,
      description: 'The x-request-id of the HTTP request that did it; null for the command line.',
      resolve: (e) => e.requestId,
    }),
  }),
});

builder.queryFields((t) => ({
  auditEvents: t.connection({
    type: AuditEvent,
    description: `Approvals, cancels, retries and forced imports, newest first. Admin keys only. ${pageSizeNote(DEFAULT_PAGE)}`,
    // The trail names who did what: only an admin may read it (no scope in builder.ts is admin-only).
    authScopes: (_root, _args, context) => adminOnly(context),
    args: {
      batchId: t.arg.id({ description: 'Only events of this batch.' }),
      paymentId: t.arg.id({ description: 'Only events of this payment (its paymentId).' }),
      action: t.arg({ type: AuditActionEnum, description: 'Only events of this action.' }),
      from: t.arg({ type: 'DateTime', description: 'At or after this time.' }),
      to: t.arg({ type: 'DateTime', description: 'Before this time.' }),
    },
    resolve: (_root, args, { services }) => {
      const where: Prisma.AuditEventWhereInput = {
        ...(args.batchId == null ? {} : { batchId: String(args.batchId) }),
        ...(args.paymentId == null ? {} : { paymentId: String(args.paymentId) }),
        ...(args.action == null ? {} : { action: args.action }),
        ...(args.from == null && args.to == null
          ? {}
          : { at: { ...(args.from == null ? {} : { gte: args.from }), ...(args.to == null ? {} : { lt: args.to }) } }),
      };
      checkPageSizes(args);
      return resolveCursorConnection<Promise<AuditEventRow[]>>(
        { args, ...pageOptions(DEFAULT_PAGE), toCursor: (event) => event.id.toString() },
        // Newest first: "after" a cursor means older (smaller ids); `inverted` reads from the other end for "last".
        ({ before, after, limit, inverted }): Promise<AuditEventRow[]> => {
          const older = readCursor('auditEvents', 'after', after, parseNumberCursor);
          const newer = readCursor('auditEvents', 'before', before, parseNumberCursor);
          return services.prisma.auditEvent.findMany({
            where: {
              ...where,
              ...(older === undefined && newer === undefined
                ? {}
                : { id: { ...(older === undefined ? {} : { lt: older }), ...(newer === undefined ? {} : { gt: newer }) } }),
            },
            orderBy: { id: inverted ? 'asc' : 'desc' },
            take: limit,
          });
        },
      );
    },
  }),
}));

import { ApiKeyError } from '../../auth/api-key-error.ts';
import type { KeyRecord, KeyRecords } from '../../auth/key-records.ts';
import { authScopesFor } from '../../auth/roles.ts';
import { requestActor } from '../../audit/audit.ts';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';
import { problemCode } from '../error-codes.ts';
import { ErrorCodeEnum, RoleEnum } from './enums.ts';
import { Problem, typedResult } from './errors.ts';
import { IdentityRef, identityViews } from './identities.ts';

/*
 * API keys an admin creates and revokes (auth/key-records.ts): a secret shown once, a role, an
 * optional expiry; revoked at once on every process. The environment's keys (GATEWAY_API_KEYS)
 * are not listed: they are the deployment's, changed where it is configured.
 */

const admin = authScopesFor('manageApiKeys');

builder.objectType(ApiKeyError, {
  name: 'ApiKeyError',
  description:
    'The API key request was refused: no such key, a name already taken or not a name, an expiry in the past, or a gateway without keys. Nothing was changed.',
  interfaces: [Problem],
  fields: (t) => ({
    code: t.field({
      type: ErrorCodeEnum,
      description:
        'API_KEY_NOT_FOUND, API_KEY_NAME_TAKEN, API_KEY_NAME_INVALID, API_KEY_EXPIRY_INVALID, API_KEY_OWNER_UNKNOWN or API_KEYS_NEED_AN_ADMIN_KEY.',
      resolve: problemCode,
    }),
  }),
});

const ApiKeyRef = builder.objectRef<KeyRecord>('ApiKey').implement({
  description: 'An API key an admin created. Its secret is never shown again: only its last four characters. Admins only.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The key’s id, for revokeApiKey.' }),
    name: t.exposeString('name', {
      description: 'What it is for: it acts as `key:NAME` in the audit trail and maker-checker, unless it was issued to a person (owner).',
    }),
    owner: t.field({
      type: IdentityRef,
      nullable: true,
      description:
        'The person it was issued to: it acts as them (their identity), so it cannot approve what they uploaded. Null: a key of its own.',
      resolve: async (k, _args, context) => (k.owner === null ? null : (await identityViews(context, [k.owner]))[0]!),
    }),
    role: t.field({ type: RoleEnum, description: 'What it may do.', resolve: (k) => k.role }),
    hint: t.exposeString('hint', { description: 'The secret’s last four characters, to tell keys apart.' }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (k) => k.createdAt }),
    createdBy: t.exposeString('createdBy', { description: 'The admin who created it.' }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it stops working by itself; null: never.',
      resolve: (k) => k.expiresAt,
    }),
    revokedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was revoked; null while it works.',
      resolve: (k) => k.revokedAt,
    }),
    revokedBy: t.string({ nullable: true, description: 'The admin who revoked it.', resolve: (k) => k.revokedBy }),
    lastUsedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was last used, to the minute; null: never.',
      resolve: (k) => k.lastUsedAt,
    }),
  }),
});

const CreatedKey = builder.objectRef<{ record: KeyRecord; secret: string }>('CreatedApiKey').implement({
  description: 'The new key and its secret: shown this once, never again.',
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyRef, description: 'The key.', resolve: (c) => c.record }),
    secret: t.exposeString('secret', {
      description: 'The secret (`pgk_…`), sent as "Authorization: Bearer <secret>". Not shown again and not kept: only its hash is.',
    }),
  }),
});

const NewKeyInput = builder.inputType('ApiKeyInput', {
  description: 'A new API key.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description: 'A letter, then up to 39 letters, digits, dots, dashes or underscores: the identity it acts as (`key:NAME`).',
    }),
    role: t.field({ type: RoleEnum, required: true, description: 'What it may do.' }),
    expiresAt: t.field({ type: 'DateTime', required: false, description: 'When it stops working by itself; omitted: never.' }),
    owner: t.string({
      required: false,
      description:
        'The person it is issued to (`user:SUB`, one of `people`): it then acts as that person, one identity with their sign-in. Omitted: it acts as `key:NAME`.',
    }),
  }),
});

/** The records, or the refusal of a gateway in anonymous local use, which takes no keys. */
function recordsOf(context: GraphQLContext): KeyRecords {
  const records = context.keys.keyRecords;
  if (records === undefined) throw new ApiKeyError('API_KEYS_NEED_AN_ADMIN_KEY');
  return records;
}

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKeyRef],
    authScopes: admin,
    description: 'Every API key admins created, newest first, revoked ones included (GATEWAY_API_KEYS’s are not listed). Admins only.',
    resolve: (_root, _args, context) => context.keys.keyRecords?.list() ?? [],
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedKey,
    authScopes: admin,
    errors: typedResult('CreateApiKey', [ApiKeyError], 'created', 'The key and its secret.'),
    description: 'Creates an API key with a role and an optional expiry; answers its secret, once. Admins only; audited.',
    args: { input: t.arg({ type: NewKeyInput, required: true, description: 'Its name, role and expiry.' }) },
    resolve: (_root, { input }, context) =>
      recordsOf(context).create(
        { name: input.name, role: input.role, expiresAt: input.expiresAt ?? null, owner: input.owner ?? null },
        requestActor(context),
        context.keys.identities,
      ),
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    authScopes: admin,
    errors: typedResult('RevokeApiKey', [ApiKeyError], 'apiKey', 'The key as it stands now.'),
    description: 'Revokes an API key: every gateway on the database refuses it from its next request on. Admins only; audited.',
    args: { id: t.arg.string({ required: true, description: 'The key’s id.' }) },
    resolve: (_root, { id }, context) => recordsOf(context).revoke(id, requestActor(context)),
  }),
}));

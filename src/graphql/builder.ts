import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ZodPlugin from '@pothos/plugin-zod';
import { scopesOf, type Scope } from '../config/roles.ts';
import type { GraphQLContext } from './context.ts';
import { toInputError } from './input-errors.ts';

/**
 * The one schema builder. Plugin order matters: authorization runs first, so nobody
 * learns anything from validation without the right role; the errors plugin then wraps
 * validation, so bad input comes back as a typed InputError.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: Record<Scope, boolean>;
  Scalars: {
    Decimal: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: string; Output: string };
    File: { Input: File; Output: never };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, ErrorsPlugin, ZodPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authorizeOnSubscribe: true,
    // The rule table is shared with the CLI (config/roles.ts): a role means the same on every path.
    authScopes: (context) => scopesOf(context.role),
  },
  errors: { unsafelyHandleInputErrors: true },
  zod: { validationError: (error) => toInputError(error) },
  relay: { clientMutationId: 'omit', cursorType: 'String', nodeQueryOptions: false, nodesQueryOptions: false },
});

builder.queryType({ description: 'Reads. Any API key may query.' });
builder.mutationType({ description: 'Payments need an operator or admin key.' });
builder.subscriptionType({ description: 'Served over Server-Sent Events at /graphql.' });

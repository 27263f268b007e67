import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ZodPlugin from '@pothos/plugin-zod';
import { GraphQLError } from 'graphql';
import { scopesOf, type Scope } from '../auth/roles.ts';
import type { GraphQLContext } from './context.ts';
import { UNPAGED_LIST_ITEMS } from './limits/cost-model.ts';
import { decodeGlobalId, encodeGlobalId } from './global-ids.ts';
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
    // The rule table is shared with the CLI (auth/roles.ts): a role means the same on every path.
    authScopes: (context) => scopesOf(context.role),
  },
  errors: { unsafelyHandleInputErrors: true },
  zod: { validationError: (error) => toInputError(error) },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    idFieldOptions: {
      description: 'Global id: unique across every type; node(id:) fetches the object again. Opaque: keep it, do not parse it.',
    },
    encodeGlobalID: encodeGlobalId,
    decodeGlobalID: decodeGlobalId,
    // node/nodes answer any key, as the direct queries do; what a role may not see is
    // refused by the type's own authScopes (runScopesOnType on each node type), so the
    // same object is refused to the same role whichever field reached it.
    nodeQueryOptions: {
      authScopes: { read: true },
      description:
        'Any object by its global id (Relay Global Object Identification); null for an id that names nothing. Any key; a type a role may not read is refused (FORBIDDEN) as its own query is.',
      args: { id: { description: 'A global id (an `id` field of this API).' } },
    },
    nodesQueryOptions: {
      authScopes: { read: true },
      args: { ids: { description: `Global ids, at most ${UNPAGED_LIST_ITEMS}.` } },
      description: `Objects by their global ids, in the order asked; null for an id that names nothing. At most ${UNPAGED_LIST_ITEMS} ids.`,
      // The cost model counts an unpaged list at UNPAGED_LIST_ITEMS; more ids would cost more than it counted.
      resolve: (_root, { ids }, _context, _info, resolveNodes) => {
        if (ids.length > UNPAGED_LIST_ITEMS) {
          throw new GraphQLError(`ids must be at most ${UNPAGED_LIST_ITEMS}`, { extensions: { code: 'BAD_USER_INPUT', argument: 'ids' } });
        }
        return resolveNodes(ids);
      },
    },
    nodeTypeOptions: {
      description: 'An object with a global id: its `id` is unique across every type and fetches it again through `node`.',
    },
    // Every connection pages the same way (docs/api/graphql/paging.md): one text for all.
    defaultConnectionTypeOptions: {
      description: 'One page of a list (Relay cursor connection): the rows in the list’s order, and where to page on.',
    },
    defaultEdgeTypeOptions: { description: 'One row of a page, with its cursor.' },
    pageInfoTypeOptions: {
      description:
        'Where a page sits in its list: pass endCursor as `after` for the next page, startCursor as `before` for the previous one.',
    },
    edgesFieldOptions: { description: 'The rows of this page, in the list’s order; empty past either end.' },
    pageInfoFieldOptions: { description: 'The cursors of this page’s ends, and whether more rows lie either way.' },
    cursorFieldOptions: { description: 'Opaque position of this row: pass it as `after` or `before`. Valid for this list only.' },
    nodeFieldOptions: { description: 'The row itself.' },
    hasNextPageFieldOptions: { description: 'More rows follow this page (page on with `first` and `after: endCursor`).' },
    hasPreviousPageFieldOptions: { description: 'More rows precede this page (page back with `last` and `before: startCursor`).' },
    startCursorFieldOptions: { description: 'The first row’s cursor; null for an empty page.' },
    endCursorFieldOptions: { description: 'The last row’s cursor; null for an empty page.' },
    firstArgOptions: { description: 'Rows from the start (or after `after`); 0 or more, cut to the list’s most per page.' },
    lastArgOptions: { description: 'Rows from the end (or before `before`); 0 or more, cut to the list’s most per page.' },
    afterArgOptions: { description: 'A cursor from this list: rows after it.' },
    beforeArgOptions: { description: 'A cursor from this list: rows before it.' },
  },
});

builder.queryType({ description: 'Reads. Any API key may query.' });
builder.mutationType({ description: 'Payments need an operator or admin key.' });
builder.subscriptionType({ description: 'Served over Server-Sent Events at /graphql.' });

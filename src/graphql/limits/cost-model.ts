import { MAX_PAGE, MAX_PROBLEMS } from '../types/paging.ts';

/**
 * What a query may ask for. The cost model counts the objects a query can make the gateway
 * build, so one page of every field passes and a page of pages does not:
 *
 * | Selection                                     | Cost                                  |
 * |-----------------------------------------------|---------------------------------------|
 * | a scalar or enum field, `__typename`          | 0                                     |
 * | an object field                               | 1 + the cost of its selection         |
 * | a list of objects                             | (1 + its selection) × its items:      |
 * |   `edges` of a connection                     |   `first`/`last`, cut to 99; 99 when absent or a variable |
 * |   a field with a `limit` argument (`problems`)|   `limit` (at most 1000); its default when absent; 1000 when a variable |
 * |   any other list (`history`, `recipient`, …)  |   10                                  |
 * | introspection (`__schema`, `__type`)          | 0: bounded by its own depth limits    |
 *
 * Example: `payments(first: 99)` with every Payment field and pageInfo is 1 + 99 × 35 + 1 =
 * 3,467: each edge is itself (1), its node (1), amount, commission and billingDetails (1
 * each) and the lists recipient, customFields and history (10 each). `batch(id)` with every
 * field, items(first: 99) and problems(limit: 1000) is 2,400; a page of 99 batches each
 * with a page of items is over 100,000.
 */
export const QUERY_LIMITS = {
  maxCost: 5000,
  /** Fields on the longest path, leaves included; the deepest query the schema answers is 7. */
  maxDepth: 8,
  maxAliases: 15,
  maxDirectives: 20,
  /** Names, punctuation and values; counted while reading, before a document is built. */
  maxTokens: 2000,
  /** Fields on the longest path inside `__schema`/`__type`; GraphiQL's own query is 15. */
  maxIntrospectionDepth: 20,
  /** `fields`, `interfaces`, `possibleTypes`, `inputFields` nested in one another (graphql-js's bound). */
  maxIntrospectionLists: 2,
} as const;
export type QueryLimits = { [K in keyof typeof QUERY_LIMITS]: number };

/** Items assumed for a list nothing in the query bounds. */
export const UNPAGED_LIST_ITEMS = 10;

/** Arguments that set how many items a list holds, with the largest value each may take. */
export const PAGE_ARGUMENTS = { first: MAX_PAGE, last: MAX_PAGE } as const;
export const LIMIT_ARGUMENT = { name: 'limit', max: MAX_PROBLEMS } as const;

/** The list fields of introspection that fan out (graphql-js MaxIntrospectionDepthRule counts the same). */
export const INTROSPECTION_LISTS: ReadonlySet<string> = new Set(['fields', 'interfaces', 'possibleTypes', 'inputFields']);

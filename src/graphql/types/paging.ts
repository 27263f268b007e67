/**
 * Page sizes of every list argument in the schema. A larger page asked for is cut to the
 * maximum (the page then says hasNextPage), never refused; the cost model
 * (graphql/limits/cost-model.ts) counts a list at these sizes.
 */
export const MAX_PAGE = 99;

/** `Batch.problems(limit:)`: the report is read whole as problems.csv. */
export const MAX_PROBLEMS = 1000;

/** What a connection's description says about its page size, so the schema documents the cut. */
export const pageSizeNote = (defaultSize: number) =>
  `${defaultSize} per page unless "first" or "last" says otherwise; at most ${MAX_PAGE} per page: a larger "first" or "last" is cut to ${MAX_PAGE}.`;

/** Options for resolveOffsetConnection: the default page and the cut. */
export const pageOptions = (defaultSize: number) => ({ defaultSize, maxSize: MAX_PAGE });

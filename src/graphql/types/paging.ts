import { GraphQLError } from 'graphql';

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

/**
 * A paging mistake, named by its argument (first, last, after or before) in the message
 * and in `extensions.argument`, so a client sees which one to fix.
 */
export function pageArgumentError(argument: 'first' | 'last' | 'after' | 'before', message: string): GraphQLError {
  return new GraphQLError(`${argument} ${message}`, { extensions: { code: 'BAD_USER_INPUT', argument } });
}

interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/** first and last, checked before Pothos's own check (whose message names no connection). */
export function checkPageSizes(args: PageArgs, least = 0): void {
  for (const argument of ['first', 'last'] as const) {
    const size = args[argument];
    if (size != null && size < least) throw pageArgumentError(argument, `must be ${least} or more`);
  }
}

/** A cursor argument read by `parse`; one that does not parse is refused by its name. */
export function readCursor<T>(
  field: string,
  argument: 'after' | 'before',
  cursor: string | undefined,
  parse: (cursor: string) => T | undefined,
): T | undefined {
  if (cursor === undefined) return undefined;
  const value = parse(cursor);
  if (value === undefined) throw pageArgumentError(argument, `is not a cursor of ${field}`);
  return value;
}

/** Cursors of lists newest first: the time, then the id that breaks ties. */
export const timeIdCursor = (at: Date, id: string) => `${at.toISOString()}|${id}`;

export function parseTimeIdCursor(cursor: string): { at: Date; id: string } | undefined {
  const bar = cursor.indexOf('|');
  const at = new Date(cursor.slice(0, Math.max(bar, 0)));
  return bar < 0 || bar === cursor.length - 1 || Number.isNaN(at.getTime()) ? undefined : { at, id: cursor.slice(bar + 1) };
}

/** Cursors of numbered rows (ids, lines). */
export const parseNumberCursor = (cursor: string): bigint | undefined => (/^\d{1,19}$/.test(cursor) ? BigInt(cursor) : undefined);

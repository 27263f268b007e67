import { GraphQLError, Kind, Lexer, Source, TokenKind, parse, type DocumentNode, type GraphQLSchema, type ParseOptions } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { QUERY_LIMITS, type QueryLimits } from './cost-model.ts';
import { DocumentMeasurer, type Measure } from './measure-document.ts';

/**
 * Limits on what one document may ask (cost-model.ts), each refusal with its own code.
 * Tokens are counted while parsing, so an oversized document is never built. The other
 * limits are checked before the spec's validation rules, which are then skipped: their
 * cost grows with the document (overlapping fields compares pairs), so an abusive
 * document must not reach them. Yoga caches parse and validation results per document
 * text, so a repeated query pays for none of this again.
 */
export function useQueryLimits(limits: QueryLimits = QUERY_LIMITS): Plugin {
  const parseWithinLimit = (source: string | Source, options?: ParseOptions): DocumentNode => {
    try {
      return parse(source, { ...options, maxTokens: limits.maxTokens });
    } catch (error) {
      if (tokensOver(source, limits.maxTokens)) {
        throw refusal(
          'TOO_MANY_TOKENS',
          `The document has more than ${limits.maxTokens} tokens (names, punctuation and values); the limit is ${limits.maxTokens}.`,
          {
            maxTokens: limits.maxTokens,
          },
        );
      }
      throw error;
    }
  };
  return {
    onParse({ setParseFn }) {
      setParseFn(parseWithinLimit);
    },
    onValidate({ validateFn, setValidationFn }) {
      setValidationFn((schema, document, rules, typeInfo, options) => {
        const refused = overLimits(schema, document, limits);
        return refused === undefined ? validateFn(schema, document, rules, typeInfo, options) : [refused];
      });
      // Field suggestions would map the schema for a caller who may not introspect it.
      return ({ valid, result, setResult }) => {
        if (!valid && result.some((error) => SUGGESTION.test(error.message))) setResult(result.map(withoutSuggestion));
      };
    },
  };
}

/** The first limit an operation of the document goes over, as the error to answer. */
export function overLimits(schema: GraphQLSchema, document: DocumentNode, limits: QueryLimits = QUERY_LIMITS): GraphQLError | undefined {
  const measurer = new DocumentMeasurer(schema, document);
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const refused = firstOver(measurer.operation(definition), limits);
    if (refused !== undefined) return new GraphQLError(refused.message, { nodes: [definition], extensions: refused.extensions });
  }
  return undefined;
}

/** Measures one document's operations; for the figures in docs/api/graphql/query-limits.md and the tests. */
export function measureOperations(schema: GraphQLSchema, document: DocumentNode): Measure[] {
  const measurer = new DocumentMeasurer(schema, document);
  return document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [measurer.operation(d)] : []));
}

function firstOver(m: Measure, l: QueryLimits): { message: string; extensions: Record<string, unknown> } | undefined {
  if (m.introspectionLists > l.maxIntrospectionLists || m.introspectionDepth > l.maxIntrospectionDepth) {
    return over(
      'INTROSPECTION_TOO_DEEP',
      `The introspection nests ${m.introspectionLists} lists of fields, interfaces or types in one another and ${m.introspectionDepth} fields deep; the limits are ${l.maxIntrospectionLists} and ${l.maxIntrospectionDepth}.`,
      {
        introspectionDepth: m.introspectionDepth,
        maxIntrospectionDepth: l.maxIntrospectionDepth,
        introspectionLists: m.introspectionLists,
        maxIntrospectionLists: l.maxIntrospectionLists,
      },
    );
  }
  if (m.depth > l.maxDepth)
    return over('QUERY_TOO_DEEP', `The query is nested to depth ${m.depth} while the limit is ${l.maxDepth}.`, {
      depth: m.depth,
      maxDepth: l.maxDepth,
    });
  if (m.aliases > l.maxAliases)
    return over('TOO_MANY_ALIASES', `The query has ${m.aliases} aliases while the limit is ${l.maxAliases}.`, {
      aliases: m.aliases,
      maxAliases: l.maxAliases,
    });
  if (m.directives > l.maxDirectives) {
    return over('TOO_MANY_DIRECTIVES', `The query has ${m.directives} directives while the limit is ${l.maxDirectives}.`, {
      directives: m.directives,
      maxDirectives: l.maxDirectives,
    });
  }
  if (m.cost > l.maxCost) {
    const cost = Number.isFinite(m.cost) ? Math.round(m.cost) : Number.MAX_SAFE_INTEGER;
    return over(
      'QUERY_TOO_COMPLEX',
      `The query costs ${cost} while the limit is ${l.maxCost}: each object counts 1 and lists count once per item (pages at their size). Ask for smaller or fewer pages.`,
      { cost, maxCost: l.maxCost },
    );
  }
  return undefined;
}

const over = (code: string, message: string, figures: Record<string, unknown>) => ({ message, extensions: { code, ...figures } });

function refusal(code: string, message: string, figures: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...figures, http: { status: 400 } } });
}

/** Whether the document has more tokens than the limit; a document the lexer cannot read is left to the parser. */
function tokensOver(source: string | Source, limit: number): boolean {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  try {
    for (let count = 0; count <= limit; count++) {
      if (lexer.advance().kind === TokenKind.EOF) return false;
    }
    return true;
  } catch {
    return false;
  }
}

const SUGGESTION = / ?Did you mean .+\?/;

function withoutSuggestion(error: Error): Error {
  if (!SUGGESTION.test(error.message) || !(error instanceof GraphQLError)) return error;
  return new GraphQLError(error.message.replace(SUGGESTION, '').trim(), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

import { GraphQLError, Kind } from 'graphql';
import { MONEY_VALUE, SIGNED_MONEY_VALUE } from '../../money/money.ts';
import { decimalText, type DecimalValue } from '../../money/money-wire.ts';
import { builder } from '../builder.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Money travels as a string with exactly two decimals ("1500.00"). A JSON number is
 * refused: it may already have been through a float on the client's side.
 */
builder.scalarType('Decimal', {
  description:
    'An amount of money in currency units as a string with exactly two decimals, e.g. "1500.00"; never a JSON number (numbers are refused). Its currency is the one next to it.',
  // No public scalar spec matches (the GraphQL Scalars project's Decimal is a JSON number): specified in this repository.
  specifiedByURL: 'docs/api/scalars.md#decimal',
  serialize: (value) => {
    const text = typeof value === 'string' ? value : wireText(value as DecimalValue);
    if (text === undefined || !SIGNED_MONEY_VALUE.test(text)) throw new GraphQLError(`not a money value: ${String(value)}`);
    return text;
  },
  parseValue: (value) => parseDecimal(value),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('Decimal must be a string such as "1500.00", not a number');
    return parseDecimal(ast.value);
  },
});

/** The database's decimal as the wire's string; undefined for what is not one, which the scalar refuses. */
function wireText(value: DecimalValue): string | undefined {
  try {
    return decimalText(value);
  } catch {
    return undefined;
  }
}

function parseDecimal(value: unknown): string {
  if (typeof value !== 'string') throw new GraphQLError('Decimal must be a string such as "1500.00", not a number');
  if (!MONEY_VALUE.test(value)) {
    throw new GraphQLError(`"${value}" is not an amount with exactly two decimals and no sign, such as "1500.00"`);
  }
  return value;
}

builder.scalarType('DateTime', {
  description: 'An instant: RFC 3339 date-time with offset. Results are UTC with milliseconds, e.g. "2026-11-22T10:00:00.000Z".',
  specifiedByURL: 'https://scalars.graphql.org/andimarek/date-time.html',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(value).toISOString()),
  parseValue: (value) => parseDateTime(value),
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseDateTime(value: unknown): Date {
  const date = typeof value === 'string' ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string');
  return date;
}

builder.scalarType('Date', {
  description: 'A calendar day YYYY-MM-DD (RFC 3339 full-date); the field says in which time zone.',
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc3339#section-5.6',
  serialize: (value) => value,
  parseValue: (value) => parseDate(value),
  parseLiteral: (ast) => parseDate(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseDate(value: unknown): string {
  if (
    typeof value !== 'string' ||
    !DATE.test(value) ||
    Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ||
    new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value
  ) {
    throw new GraphQLError('Date must be a real calendar date YYYY-MM-DD');
  }
  return value;
}

builder.scalarType('File', {
  description: 'A file sent as a GraphQL multipart request upload. Input only.',
  specifiedByURL: 'https://github.com/jaydenseric/graphql-multipart-request-spec',
  serialize: () => {
    throw new GraphQLError('File is an input only');
  },
  parseValue: (value) => {
    // Yoga's File may come from @whatwg-node rather than Node's own class: checked by shape.
    const file = value as Partial<File> | null;
    if (typeof file?.stream !== 'function' || typeof file.name !== 'string') {
      throw new GraphQLError('File must be sent as a multipart upload (GraphQL multipart request spec)');
    }
    return value as File;
  },
});

import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './schema.ts';

/** The committed schema.graphql: types sorted, so a diff shows only real changes. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

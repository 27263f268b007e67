/**
 * `'A', 'B'` for `IN (…)` or `ARRAY[…]`, from a typed list of enum values, so that state
 * names reach SQL from the state tables (batch/states/batch-states.ts, batch/states/row-states.ts,
 * payments/status.ts) and a misspelt one fails tsc. Only enum-shaped names are accepted:
 * the text is spliced into SQL.
 */
export function sqlList<T extends string>(values: readonly T[]): string {
  if (values.length === 0) throw new Error('sqlList: an empty list matches nothing; say so in the query instead');
  return values.map((value) => sqlName(value)).join(', ');
}

/** One enum value as a SQL literal: `'RUNNING'`. */
export function sqlName<T extends string>(value: T): string {
  if (!/^[A-Z][A-Z_]*$/.test(value)) throw new Error(`sqlList: ${JSON.stringify(value)} is not an enum value`);
  return `'${value}'`;
}

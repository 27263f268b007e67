import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFilesUnder } from '../support/source-files.ts';

/**
 * Money is written in two places only (issue 39 §6): src/money/money-text.ts for people and
 * src/money/money-wire.ts for the wire. Anywhere else, toFixed(2) would take an amount
 * through a float (or past the formatters), a local rub() would be a third formatter, and a
 * Money object built inline would skip the wire's form.
 */
const root = new URL('../..', import.meta.url).pathname;
const WIRE = 'src/money/money-wire.ts';

const rules: ReadonlyArray<readonly [string, RegExp]> = [
  ['toFixed(2)', /\.toFixed\(2\)/],
  ['a function named rub', /\bfunction\s+rub\b|\b(?:const|let|var)\s+rub\s*=/],
  [
    'a Money object built inline',
    /\{\s*(?:value:\s*(?=\S)(?!z\.)[^{},;]+,\s*currency:\s*[^{},;]+\}|currency:\s*(?=\S)(?!z\.|Currency\b)[^{},;]+,\s*value:\s*[^{},;]+\})/,
  ],
];

function findings(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      rules
        .filter(([, pattern]) => pattern.test(line) && !(file === WIRE && pattern === rules[2]![1]))
        .map(([name]) => `${file}:${index + 1}: ${name}`),
    );
}

describe('money in text', () => {
  it('finds each rule in a planted file', () => {
    const planted = [
      'const value = amount.toFixed(2);',
      'export function rub(minor: bigint): string {',
      'const rub = (minor: bigint) => fromMinorUnits(minor);',
      "return { value: b.totalAmount, currency: 'RUB' as const };",
      "return { currency: 'RUB' as const, value: fromMinorUnits(minor) };",
      // Not findings: a rate, a schema and a type.
      'const rate = throughput.toFixed(1);',
      'amount: z.object({ value: z.string(), currency: z.string() }),',
      'let estimate: { value: string; currency: string } | undefined;',
    ].join('\n');
    expect(findings('planted.ts', planted)).toEqual([
      'planted.ts:1: toFixed(2)',
      'planted.ts:2: a function named rub',
      'planted.ts:3: a function named rub',
      'planted.ts:4: a Money object built inline',
      'planted.ts:5: a Money object built inline',
    ]);
  });

  it('src/ and web/src/ write money only through the two formatters', () => {
    const files = [
      ...sourceFilesUnder(`${root}src`, { names: /\.tsx?$/, skip: ['generated'] }),
      ...sourceFilesUnder(`${root}web/src`, { names: /\.tsx?$/, skip: ['gql'] }),
    ];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => findings(relative(root, file), readFileSync(file, 'utf8')))).toEqual([]);
  });
});
